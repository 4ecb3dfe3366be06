import {
  awsMetadataRouteScript,
  bootTimeScript,
  parseMetadataRoute,
  rebootScript,
} from "../../../providers/day2/scripts";
import { powershellErrors } from "../../helpers/powershell-parser";

test.each([
  ["boot time", bootTimeScript()],
  ["reboot", rebootScript()],
  ["AWS metadata route", awsMetadataRouteScript()],
])("the %s script parses as PowerShell without errors", async (_n, script) => {
  expect(await powershellErrors(script)).toEqual([]);
});

test("the route is a host route (/32) through the default gateway, as WMCO's troubleshooting guide says", () => {
  expect(awsMetadataRouteScript()).toContain("route.exe add $target mask 255.255.255.255 $gateway");
  expect(awsMetadataRouteScript()).toContain("'169.254.169.254'");
});

test("the check's output parses, BOM and CRLF included; garbage is a clear error", () => {
  expect(parseMetadataRoute('\uFEFF{"routeAdded":true,"gateway":"10.0.0.1","instanceId":"i-0abc"}\r\n')).toEqual({
    routeAdded: true,
    gateway: "10.0.0.1",
    instanceId: "i-0abc",
  });
  expect(parseMetadataRoute('{"routeAdded":false,"gateway":"10.0.0.1","instanceId":""}')).toEqual({
    routeAdded: false,
    gateway: "10.0.0.1",
    instanceId: "",
  });
  expect(() => parseMetadataRoute("Access is denied.")).toThrow(/printed no JSON/);
});
