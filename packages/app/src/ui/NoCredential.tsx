import { HOW_TO_GET_IN } from '../connection/browser-credential.js';

/**
 * The page a browser gets without a panel credential: no link, a spent one, or
 * a new tab (the token is kept per tab). It opens no socket and says how to get in.
 */
export function NoCredential(props: { reason: string }) {
  return (
    <div class="app" data-testid="no-credential">
      <header class="topbar">
        <div class="brand">
          <span>ptydeck</span>
        </div>
      </header>
      <main class="overview">
        <section class="overview-section" role="alert">
          <h2>This page has no way in yet</h2>
          <p>{props.reason}</p>
          <p>{HOW_TO_GET_IN}</p>
        </section>
      </main>
    </div>
  );
}
