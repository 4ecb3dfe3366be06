import type * as pulumi from "@pulumi/pulumi";
import { messageOf } from "../../lib/errors";

/** What to look for: the newest image matching a name filter, by owner, in one region. */
export interface AmiQuery {
  /** The serialized provider the engine stores with the resource (set by the dynamic-provider host). */
  __provider?: string;
  region: string;
  owners: string[];
  nameFilter: string;
  /** Change this (any text) to move to the newest matching AMI; the pin holds until then. */
  refresh?: string;
}

/** The query and the image it pinned (`imageId`, `imageName`, `creationDate`). */
export type PinnedAmiOutputs = AmiQuery & Awaited<ReturnType<typeof newestImage>>;

const sameQuery = (a: AmiQuery, b: AmiQuery) =>
  a.region === b.region &&
  a.nameFilter === b.nameFilter &&
  JSON.stringify(a.owners) === JSON.stringify(b.owners) &&
  (a.refresh ?? "") === (b.refresh ?? "");

/**
 * The EC2 lookup, with the AWS SDK's own credential chain (environment, profile, web identity, instance role) and
 * endpoint settings (`AWS_ENDPOINT_URL_EC2`). Required here, at call time: this code runs in the dynamic-provider
 * host after being serialized.
 */
async function newestImage(q: AmiQuery) {
  const ec2: typeof import("@aws-sdk/client-ec2") = require("@aws-sdk/client-ec2");
  const client = new ec2.EC2Client({
    region: q.region,
    maxAttempts: 3,
    requestHandler: { requestTimeout: 30_000, connectionTimeout: 10_000 },
  });
  try {
    const out = await client.send(
      new ec2.DescribeImagesCommand({
        Owners: q.owners,
        Filters: [
          { Name: "name", Values: [q.nameFilter] },
          { Name: "state", Values: ["available"] },
        ],
      }),
    );
    const images = (out.Images ?? []).flatMap((i) =>
      i.ImageId ? [{ imageId: i.ImageId, imageName: i.Name ?? "", creationDate: i.CreationDate ?? "" }] : [],
    );
    const newest = images.sort((a, b) => b.creationDate.localeCompare(a.creationDate))[0];
    if (!newest)
      throw new Error(`no available AMI named like ${q.nameFilter} owned by ${q.owners.join(", ")} in ${q.region}`);
    return newest;
  } catch (e) {
    const m = messageOf(e);
    throw new Error(
      `looking up the Windows AMI in ${q.region} failed: ${m}. ` +
        "The lookup runs at `pulumi up` with the AWS SDK's usual credentials (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity); " +
        "or set machineSets[i].aws.ami to an AMI ID and no lookup happens.",
    );
  } finally {
    client.destroy();
  }
}

/**
 * Pins the AMI of an AWS Windows MachineSet: looked up once at the first `pulumi up`, recorded in state, and kept
 * until the query or its `refresh` token changes, so a newer AMI published by Amazon never changes the
 * MachineSet on its own. Preview never calls AWS (the engine does not run dynamic creates at preview).
 */
export const pinnedAmiProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: AmiQuery) {
    const found = await newestImage(inputs);
    return { id: `${inputs.region}/${found.imageId}`, outs: { ...inputs, ...found } };
  },
  async diff(_id: string, olds: PinnedAmiOutputs, news: AmiQuery) {
    const codeChanged = olds.__provider !== news.__provider;
    return { changes: !sameQuery(olds, news) || codeChanged, replaces: [], deleteBeforeReplace: false };
  },
  async update(_id: string, olds: PinnedAmiOutputs, news: AmiQuery) {
    // Only a changed query or refresh token moves the pin; anything else (new program code) keeps it.
    if (sameQuery(olds, news))
      return { outs: { ...news, imageId: olds.imageId, imageName: olds.imageName, creationDate: olds.creationDate } };
    return { outs: { ...news, ...(await newestImage(news)) } };
  },
  async read(id: string, props?: PinnedAmiOutputs) {
    // The pin is the state; refresh needs no AWS credentials.
    return { id, props: props ?? {} };
  },
  async delete() {
    // Nothing exists in AWS for a pin.
  },
};
