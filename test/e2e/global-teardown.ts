import { removeBuiltOnce } from "./project";

/** Removes what global-setup.ts made for the run: the project copy built once (project.ts `builtOnce`). */
export default function globalTeardown(): void {
  removeBuiltOnce();
}
