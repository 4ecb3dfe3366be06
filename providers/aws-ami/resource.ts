import * as pulumi from "@pulumi/pulumi";
import { dynamicResource, pick } from "../dynamic-resource";

export interface PinnedAmiArgs {
  /** AWS region of the cluster. */
  region: pulumi.Input<string>;
  /** Image owners (e.g. `amazon`). */
  owners: pulumi.Input<string[]>;
  /** EC2 image name filter (WMCO's, per Windows Server version). */
  nameFilter: pulumi.Input<string>;
  /** Change (any text) to move to the newest matching AMI at the next `pulumi up`. Default: unset. */
  refresh?: pulumi.Input<string>;
}

/** The newest matching AMI at the first `pulumi up`, then pinned in state (see `pinnedAmiProvider`). */
export class PinnedAmi extends dynamicResource("PinnedAmi", {
  inputs: (args: PinnedAmiArgs) => pick(args, ["region", "owners", "nameFilter", "refresh"]),
  outputs: ["imageId", "imageName", "creationDate"],
}) {
  declare readonly imageId: pulumi.Output<string>;
  declare readonly imageName: pulumi.Output<string>;
  declare readonly creationDate: pulumi.Output<string>;
}
