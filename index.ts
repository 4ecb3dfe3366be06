import * as pulumi from "@pulumi/pulumi";
import { kubernetesProvider } from "./components/cluster-access";
import { WindowsEstate } from "./components/estate";
import { loadStackConfig } from "./stacks/from-pulumi";

// Everything is validated before the first resource is declared: a config error declares nothing.
const config = loadStackConfig();

const provider = kubernetesProvider(config.cluster);
const estate = new WindowsEstate(pulumi.getStack(), { config }, { providers: { kubernetes: provider } });

/** Namespace WMCO runs in. */
export const operatorNamespace = estate.operatorNamespace;
/** The installed and succeeded WMCO CSV (unknown in render mode). */
export const installedCSV = estate.installedCSV;
/** Public half of the WMCO key as an `authorized_keys` line: put it on golden images and BYOH hosts. */
export const wmcoPublicKey = estate.publicKey;
/** SHA256 fingerprint of the WMCO key. */
export const wmcoPublicKeyFingerprint = estate.publicKeyFingerprint;
