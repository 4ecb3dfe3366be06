/**
 * Paths as the host's SFTP server wants them. Win32-OpenSSH's sftp-server takes drive paths with forward slashes
 * and a leading slash (`/C:/k/containerd`); the lab's Linux sftp-server takes POSIX paths as they are.
 */
export function toSftpPath(path: string, style: "windows" | "posix"): string {
  if (style === "posix") return path;
  const p = path.replace(/\\/g, "/");
  return /^[A-Za-z]:\//.test(p) ? `/${p}` : p;
}

/** Joins a directory and a relative path in the host's own notation. */
export function joinHostPath(dir: string, rel: string, style: "windows" | "posix"): string {
  const sep = style === "windows" ? "\\" : "/";
  const parts = rel.split(/[\\/]/).filter((p) => p !== "");
  return [dir.replace(/[\\/]+$/, ""), ...parts].join(sep);
}

/**
 * A relative file path we may write: no absolute paths, no `..`, no drive letters, no characters Windows
 * forbids. Returns the problem, or undefined when the path is fine.
 */
export function relativePathProblem(rel: string): string | undefined {
  if (rel === "" || /^[\\/]/.test(rel) || /^[A-Za-z]:/.test(rel)) return "must be a relative path";
  const parts = rel.split(/[\\/]/);
  if (parts.some((p) => p === ".." || p === "." || p === "")) return "must not contain '.', '..' or empty segments";
  if (/[<>:"|?*\x00-\x1f]/.test(rel)) return `contains a character Windows does not allow in file names`;
  return undefined;
}

/** The directory part of a relative path, in `/` notation (`a/b/c.toml` → `a/b`), or "" for a top-level file. */
export function relDir(rel: string): string {
  const parts = rel.split(/[\\/]/);
  return parts.slice(0, -1).join("/");
}
