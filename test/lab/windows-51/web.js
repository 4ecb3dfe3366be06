// The stand-in's rules for web (see index.js): what `(Invoke-WebRequest -UseBasicParsing -Uri …).Content` is in
// Windows PowerShell 5.1, and what the PowerShell language then makes of it. 5.1 is the FullCLR build of the cmdlet;
// its code is in PowerShell/PowerShell up to v6.0 (read at tag v6.0.0-alpha.10, the first open-source drop of the
// 5.1 code, under src/Microsoft.PowerShell.Commands.Utility/commands/utility/WebCmdlet).

const WEB = "src/Microsoft.PowerShell.Commands.Utility/commands/utility/WebCmdlet";

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "web.content-is-bytes",
    area: "web",
    rule:
      "Invoke-WebRequest returns a BasicHtmlWebResponseObject, whose .Content is a string, only for a text " +
      "Content-Type; for any other type it returns a WebResponseObject, whose .Content is a byte[] of the body.",
    source:
      `PowerShell/PowerShell@v6.0.0-alpha.10 ${WEB}/FullClr/WebResponseObjectFactory.FullClr.cs GetResponseObject ` +
      `(WebResponseHelper.IsText); ${WEB}/Common/WebResponseObject.Common.cs (byte[] Content, InitializeContent)`,
    rows: [1],
  },
  {
    id: "web.text-types",
    area: "web",
    rule:
      "A Content-Type is text when its part before the first ';' starts with text/, is application/xml, " +
      "application/xml-external-parsed-entity, application/xml-dtd or ends in +xml, or is application/json, " +
      "application/x-javascript or application/javascript (ignoring case); or when the Windows registry gives the " +
      "type's extension a PerceivedType of text. No type, and application/octet-stream (what GitHub serves for " +
      "every release asset, checksum files included), is not text.",
    source:
      `PowerShell/PowerShell@v6.0.0-alpha.10 ${WEB}/Common/ContentHelper.Common.cs IsText, ` +
      "GetContentTypeSignature, CheckIsText, CheckIsXml, CheckIsJson; GitHub's octet-stream assets: " +
      "cynative/cynative#148 (checked against a live asset), elvisun/newsjack#41",
    rows: [1],
  },
  {
    id: "web.text-decoding",
    area: "web",
    rule:
      "A text .Content is the body decoded with the response's charset (HttpWebResponse.CharacterSet), " +
      "ISO-8859-1 when there is none or it is unknown.",
    source:
      `PowerShell/PowerShell@v6.0.0-alpha.10 ${WEB}/Common/BasicHtmlWebResponseObject.Common.cs InitializeContent; ` +
      `${WEB}/StreamHelper.cs DecodeStream; ${WEB}/Common/ContentHelper.Common.cs GetEncodingOrDefault ` +
      "(_defaultCodePage ISO-8859-1)",
    rows: [1],
  },
  {
    id: "web.bytes-as-text",
    area: "web",
    rule:
      "The language treats a byte[] as a collection: `-split` splits each element's string (a byte is its decimal " +
      "number), so `($bytes -split '\\s+')[0]` is the first byte as a decimal string, and `[string]$bytes` is the " +
      "numbers joined by $OFS (a space).",
    source:
      'MicrosoftDocs/PowerShell-Docs 5.1 about_Split ("If you submit more than one string (a collection) to the ' +
      '-split operator, it splits each string"); about_Preference_Variables ($OFS, default a space)',
    rows: [1],
  },
];

/** The media type part of a Content-Type as ContentHelper compares it (before the first `;`), or undefined. */
function signature(contentType) {
  if (contentType === undefined || contentType === null || contentType === "") return undefined;
  return String(contentType).split(";")[0];
}

const XML = ["application/xml", "application/xml-external-parsed-entity", "application/xml-dtd"];
const JSON_TYPES = [
  "application/json",
  "text/json",
  "application/x-javascript",
  "text/x-javascript",
  "application/javascript",
  "text/javascript",
];
/**
 * The registry's media types with a PerceivedType of text (CheckIsText's fallback). None is modelled: the hosts'
 * registries differ, and no type the program downloads depends on one.
 */
const PERCEIVED_TEXT = [];

/** Whether Windows PowerShell 5.1 makes `.Content` a string for this Content-Type (rule web.text-types). */
function isTextContentType(contentType) {
  const sig = signature(contentType);
  if (sig === undefined) return false;
  const t = sig.toLowerCase();
  return (
    t.startsWith("text/") ||
    XML.includes(t) ||
    t.endsWith("+xml") ||
    JSON_TYPES.includes(t) ||
    PERCEIVED_TEXT.includes(t)
  );
}

/** The charset parameter of a Content-Type, if any. */
function charset(contentType) {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(String(contentType || ""));
  return m ? m[1].toLowerCase() : undefined;
}

/**
 * What `(Invoke-WebRequest -UseBasicParsing).Content` is for a response of this type and body: a string for a text
 * type (decoded with its charset, else ISO-8859-1: rule web.text-decoding), else the body's bytes (a Buffer).
 */
function webContent(contentType, bytes) {
  const body = Buffer.from(bytes);
  if (!isTextContentType(contentType)) return body;
  const cs = charset(contentType);
  if (cs === "utf-8" || cs === "utf8") return body.toString("utf8");
  if (cs === "utf-16" || cs === "utf-16le" || cs === "unicode") return body.toString("utf16le");
  if (cs === "us-ascii" || cs === "ascii") return body.toString("ascii");
  return body.toString("latin1");
}

/** `[string]$value` for a `.Content` (rule web.bytes-as-text): a byte[] becomes its numbers joined by spaces. */
function psString(value) {
  return Buffer.isBuffer(value) ? [...value].join(" ") : String(value);
}

/** `($value -split '\s+')` for a `.Content` (rule web.bytes-as-text): each byte of a byte[] is split on its own. */
function psSplitWhitespace(value) {
  if (Buffer.isBuffer(value)) return [...value].map(String);
  return String(value).split(/\s+/);
}

module.exports = { RULES, isTextContentType, webContent, psString, psSplitWhitespace };
