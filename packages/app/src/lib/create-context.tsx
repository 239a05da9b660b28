import { createContext, useContext, type JSX } from 'solid-js';

/**
 * Makes a Solid context the one way every context in the app is made: a name,
 * an `init` that builds the value inside the provider's owner (so its
 * `onCleanup`s run when the provider unmounts), and a `use()` that fails loudly
 * outside the provider instead of handing back `undefined`.
 */
export function createSimpleContext<T, Props extends Record<string, unknown> = Record<string, never>>(options: {
  name: string;
  init: (props: Props) => T;
}) {
  const Context = createContext<T>();

  function Provider(props: Props & { children?: JSX.Element }) {
    const value = options.init(props);
    return <Context.Provider value={value}>{props.children}</Context.Provider>;
  }

  function use(): T {
    const value = useContext(Context);
    if (value === undefined) throw new Error(`${options.name} used outside its provider (<${options.name}Provider>)`);
    return value;
  }

  return { Provider, use };
}
