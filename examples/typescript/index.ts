import * as pulumi from "@pulumi/pulumi";
import { WindowsEstate } from "windows-estate";

// The estate of one OpenShift cluster on Azure: WMCO through OLM, its SSH key, one Windows Server 2022 MachineSet.
const config = new pulumi.Config();
const estate = new WindowsEstate("estate", {
  cluster: {
    platform: "Azure",
    infrastructureId: config.require("infrastructureId"),
    region: config.require("region"),
  },
  // `pulumi config set --secret wmcoPrivateKey < ~/.ssh/wmco`: a secret, never in the state in plain text.
  privateKey: config.requireSecret("wmcoPrivateKey"),
  machineSets: [{ name: "winworker", replicas: 1, windowsServer: "2022", azure: { vmSize: "Standard_D2s_v3" } }],
});

export const installedCSV = estate.installedCSV;
export const wmcoPublicKey = estate.publicKey;
export const machineSets = estate.machineSets;
