// Final and unreachable (timed out, refused, a 5xx) are lib/errors.ts's, where the Kubernetes API client
// (lib/kube-api.ts) flags them.
export {
  finalError,
  isFinal,
  isUnreachable,
  unreachableError,
  type FinalError,
  type UnreachableError,
} from "../lib/errors";
