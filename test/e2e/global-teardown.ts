import { endRun } from "./project";

/** Removes what global-setup.ts made for the run: its folder, with every project copy in it (project.ts `endRun`). */
export default function globalTeardown(): void {
  endRun();
}
