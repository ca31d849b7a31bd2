// The views App.tsx loads on first use (src/app/lazyViews.tsx) are loaded before each
// test file, so the tests see a view the moment they switch to it, as before the split.
import { lazyViews } from "../src/app/lazyViews";

await Promise.all(lazyViews.map((view) => view.preload()));
