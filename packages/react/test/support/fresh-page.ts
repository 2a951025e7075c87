// Runs before every test file (vitest.config.ts): the files share one happy-dom page, and each
// starts on the page a process of its own gave it (no storage, the start URL, nothing rendered,
// none of an earlier file's timers or fetches still going).
// A module (for its top-level await).
export {};

type HappyDomWindow = { happyDOM: { abort(): Promise<void>; setURL(url: string): void } };

const START = 'http://localhost:3000/';

await (window as unknown as HappyDomWindow).happyDOM.abort();
localStorage.clear();
sessionStorage.clear();
(window as unknown as HappyDomWindow).happyDOM.setURL(START);
history.replaceState(null, '', START);
document.body.replaceChildren();
