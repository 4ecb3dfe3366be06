/** What the OLM player's files share: the API versions and the caches. */
import { Informer } from "./informer";
import { Kube } from "./kube";
import { Recorder } from "./events";

export const OLM_V1A1 = "operators.coreos.com/v1alpha1";
export const OLM_V1 = "operators.coreos.com/v1";

export interface OlmState {
  kube: Kube;
  recorder: Recorder;
  subs: Informer;
  ips: Informer;
  csvs: Informer;
  ogs: Informer;
  cats: Informer;
  deps: Informer;
  /** The API server's `/version` gitVersion, e.g. `v1.36.3`. */
  serverVersion: string;
}
