/**
 * A local stand-in for the EC2 Query API's DescribeImages, enough for the AWS SDK's EC2Client to talk to it through
 * `AWS_ENDPOINT_URL_EC2`. It refuses unsigned requests (the real API requires Signature Version 4) and answers in the
 * documented response shape (EC2 API Reference, DescribeImages, "Example response": DescribeImagesResponse /
 * imagesSet / item with imageId, name, creationDate, imageState). It filters by owner alias and name pattern itself,
 * so a lookup that sent the wrong filter finds nothing.
 */
import * as http from "http";
import { AddressInfo } from "net";

export interface Ec2Image {
  imageId: string;
  name: string;
  creationDate: string;
  ownerAlias: string;
}

export class Ec2StandIn {
  images: Ec2Image[] = [];
  readonly requests: URLSearchParams[] = [];
  private server?: http.Server;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const auth = String(req.headers.authorization ?? "");
        if (!auth.startsWith("AWS4-HMAC-SHA256 Credential=")) {
          res.writeHead(401, { "Content-Type": "text/xml" });
          return res.end(
            "<Response><Errors><Error><Code>AuthFailure</Code><Message>not signed</Message></Error></Errors></Response>",
          );
        }
        const params = new URLSearchParams(body);
        this.requests.push(params);
        if (params.get("Action") !== "DescribeImages") {
          res.writeHead(400, { "Content-Type": "text/xml" });
          return res.end(
            "<Response><Errors><Error><Code>InvalidAction</Code><Message>only DescribeImages</Message></Error></Errors></Response>",
          );
        }
        const owners = [...params.entries()].filter(([k]) => /^Owner\.\d+$/.test(k)).map(([, v]) => v);
        const filters = new Map<string, string[]>();
        for (const [k, v] of params.entries()) {
          const m = /^Filter\.(\d+)\.Name$/.exec(k);
          if (m)
            filters.set(
              v,
              [...params.entries()].filter(([kk]) => kk.startsWith(`Filter.${m[1]}.Value.`)).map(([, vv]) => vv),
            );
        }
        const glob = (p: string) =>
          new RegExp(
            "^" +
              p
                .replace(/[.+^${}()|[\]\\]/g, "\\$&")
                .replace(/\?/g, ".")
                .replace(/\*/g, ".*") +
              "$",
          );
        const names = (filters.get("name") ?? []).map(glob);
        const found = this.images.filter(
          (i) =>
            (owners.length === 0 || owners.includes(i.ownerAlias)) &&
            (names.length === 0 || names.some((n) => n.test(i.name))),
        );
        const items = found
          .map(
            (i) =>
              `<item><imageId>${i.imageId}</imageId><imageState>available</imageState><creationDate>${i.creationDate}</creationDate><name>${i.name}</name><imageOwnerAlias>${i.ownerAlias}</imageOwnerAlias><platform>windows</platform></item>`,
          )
          .join("");
        res.writeHead(200, { "Content-Type": "text/xml;charset=UTF-8" });
        res.end(
          `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeImagesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><imagesSet>${items}</imagesSet></DescribeImagesResponse>`,
        );
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    // Idle keep-alive connections would hold close() (and the jest worker) open.
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
