// An agent's output that asks xterm.js for a huge count: a scroll, a line insert or a repeat of 2147483647, each
// of which xterm.js carried out once per count. One such sequence held the page's only thread for hours: every
// tab of the panel froze, the developer's own included. The panel's terminal now drops such counts and goes on.
import { expect, expectScreen, test } from './fixtures.js';

interface Created { id: string }

test("an agent's output with huge counts (SU, IL, REP, CBT) leaves the panel live and drawing", async ({ panel: page, agent }) => {
  const created = await agent.call<Created>('terminal_create', { title: 'counts' });
  await expect(page.getByRole('tab', { name: /counts/ })).toHaveAttribute('aria-selected', 'true');
  await agent.call('terminal_run', {
    id: created.id,
    command: "printf 'kept-line\\n\\033[2147483647S\\033[2147483647L\\033[2147483647Z\\033[2147483647b'; echo after-$((6*7))",
  });
  await expectScreen(page, created.id, /^after-42$/m);
  // What the dropped sequences would have blanked is still there.
  await expectScreen(page, created.id, /^kept-line$/m);
});
