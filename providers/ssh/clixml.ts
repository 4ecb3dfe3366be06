/**
 * Windows PowerShell's standard error as a person reads it. Started with `-EncodedCommand` and a redirected stderr
 * (what every command over SSH is), powershell.exe 5.1 writes its error, warning and progress records as CLIXML: a
 * `#< CLIXML` line (PowerShell/PowerShell src/Microsoft.PowerShell.ConsoleHost/host/msh/Serialization.cs,
 * `WrappedSerializer`, `XmlCliTag`) and then `<Objs>` with one `<S S="Error">` string per line of the error, its
 * control characters written as `_xHHHH_` (src/System.Management.Automation/engine/serialization.cs,
 * `InternalSerializer.EncodeString`: C0 and C1 controls, surrogates, and the `_` of `_x`). Reported as
 * PowerShell/PowerShell#5912 and #16678. Pure: no I/O.
 */

const HEADER = "#< CLIXML";

/** The XML entities XmlWriter writes in element text and attribute values. */
function xmlUnescape(s: string): string {
  return s.replace(
    /&(lt|gt|amp|quot|apos|#x([0-9a-fA-F]+)|#(\d+));/g,
    (_, name: string, hex?: string, dec?: string) => {
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      if (dec) return String.fromCodePoint(parseInt(dec, 10));
      return { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }[name] ?? "";
    },
  );
}

/** `InternalSerializer.EncodeString` reversed: each `_xHHHH_` is the UTF-16 code unit HHHH. */
function decodeString(s: string): string {
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/**
 * The text of the records of one stream in a CLIXML document (`Error` by default; also `warning`, `verbose`, `debug`),
 * in order and joined as PowerShell wrote them (each line carries its own line break).
 */
function streamText(xml: string, stream: string): string {
  const out: string[] = [];
  const re = /<S S="([^"]*)">([\s\S]*?)<\/S>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml))
    if (m[1].toLowerCase() === stream.toLowerCase()) out.push(decodeString(xmlUnescape(m[2])));
  return out.join("");
}

/**
 * Standard error made readable: every CLIXML block is replaced by the text of its error records (progress and the
 * other streams are dropped: they are not the error); text outside the blocks is kept as it is. Text without CLIXML
 * comes back unchanged.
 */
export function readableStderr(stderr: string): string {
  if (!stderr.includes(HEADER)) return stderr;
  const parts: string[] = [];
  let rest = stderr;
  for (;;) {
    const at = rest.indexOf(HEADER);
    if (at < 0) {
      parts.push(rest);
      break;
    }
    parts.push(rest.slice(0, at));
    rest = rest.slice(at + HEADER.length).replace(/^\r?\n/, "");
    const end = rest.indexOf("</Objs>");
    // A block cut short (the tail of a long stderr, a process killed mid-write) still yields its whole records.
    const block = end < 0 ? rest : rest.slice(0, end + "</Objs>".length);
    parts.push(streamText(block, "Error"));
    if (end < 0) break;
    rest = rest.slice(end + "</Objs>".length).replace(/^\r?\n/, "");
  }
  return parts.join("");
}
