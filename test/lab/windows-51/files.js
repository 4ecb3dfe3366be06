// The stand-in's rules for files (see index.js): the bytes Windows PowerShell 5.1 writes, what its Get-Content reads
// back, and what Win32-OpenSSH's sshd reads of the same bytes.

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [
  {
    id: "files.write-encoding",
    area: "files",
    rule: "Windows PowerShell 5.1 writes `>`, `>>` and Out-File as 'Unicode' (UTF-16LE with a BOM) by default; Set-Content -Encoding ascii writes one byte per character ('?' for non-ASCII), utf8 writes a UTF-8 BOM first, unicode/bigendianunicode/utf32 their BOMs.",
    source:
      "PowerShell-Docs 5.1 about_Character_Encoding; PowerShell FileSystemCmdletProviderEncoding (Microsoft.PowerShell.Commands.FileSystemProvider)",
    rows: [5],
  },
  {
    id: "files.get-content-decodes-bom",
    area: "files",
    rule: "Windows PowerShell 5.1 Get-Content detects a byte-order mark (UTF-8, UTF-16LE/BE, UTF-32) and decodes the file by it, so a UTF-16 file reads back as the same lines an ASCII one would; without a BOM it reads the ANSI code page.",
    source:
      "PowerShell-Docs 5.1 about_Character_Encoding (reading cmdlets detect the BOM); PowerShell FileSystemContentReaderWriter",
    rows: [5],
  },
  {
    id: "files.sshd-reads-bytes",
    area: "files",
    rule: "Win32-OpenSSH's sshd opens authorized_keys with its fopen, which skips a UTF-8 BOM and decodes nothing else; lines are split at LF and read as C strings, so a UTF-16 file's lines end at their first NUL byte and no key in it is ever matched (silently: 'Failed publickey').",
    source:
      "PowerShell/openssh-portable contrib/win32/win32compat/fileio.c w32_fopen_utf8 ('read out UTF-8 BOM if present'); PowerShell/Win32-OpenSSH#2070, #1196 ('We support only UTF8 encoding')",
    rows: [5],
  },
  {
    id: "files.icacls-acl",
    area: "files",
    rule: "icacls /inheritance:r removes every inherited ACE and protects the ACL, /grant adds an explicit ACE for the SID (a '*' prefix names a SID), /reset puts back the inherited ACL and drops explicit ACEs; explicit ACEs a file already has survive /inheritance:r. A new file (the temporary one prepare moves into place) has only what its folder passes on.",
    source:
      "Microsoft Learn windows-commands/icacls (/inheritance:e|d|r, /grant, /reset); windowsserverdocs OpenSSH_KeyManagement.md (administrators_authorized_keys: Administrators and SYSTEM only)",
    rows: [5],
  },
  {
    id: "files.rename-keeps-acl",
    area: "files",
    rule: "A file moved within a volume (Move-Item, a rename) keeps its own ACL: the destination folder's inheritable ACEs are not applied to it, and a file it replaces lends it nothing. So a file restricted while it is still a temporary file is restricted the moment it takes the live name; icacls on the live file afterwards leaves a window with whatever the move brought.",
    source:
      "microsoft/winfile#276 (a Windows maintainer: renames do not manipulate ACLs, the parent's ACL is ignored; Explorer re-applies it with SetNamedSecurityInfo); Microsoft Learn windows-commands/icacls (/reset)",
    rows: [5],
  },
];

const BOMS = {
  unicode: Buffer.from([0xff, 0xfe]),
  bigendianunicode: Buffer.from([0xfe, 0xff]),
  utf8: Buffer.from([0xef, 0xbb, 0xbf]),
  utf32: Buffer.from([0xff, 0xfe, 0x00, 0x00]),
};

/** UTF-16 big-endian bytes of `text`. */
function utf16be(text) {
  const b = Buffer.from(text, "utf16le");
  for (let i = 0; i + 1 < b.length; i += 2) [b[i], b[i + 1]] = [b[i + 1], b[i]];
  return b;
}

/**
 * The bytes PowerShell 5.1 writes for `text` with `Set-Content -Encoding <encoding>` (`Out-File`/`>`: 'unicode').
 * `utf8nobom` is what `[System.IO.File]::WriteAllText` and `New-Object System.Text.UTF8Encoding $false` write.
 * 'default'/'oem' (the ANSI/OEM code pages) are modelled as Latin-1, which agrees with them on ASCII.
 */
function encodeText(text, encoding) {
  const e = String(encoding).toLowerCase();
  switch (e) {
    case "ascii":
      return Buffer.from(text.replace(/[^\x00-\x7f]/g, "?"), "latin1");
    case "default":
    case "oem":
      return Buffer.from(text, "latin1");
    case "utf8nobom":
      return Buffer.from(text, "utf8");
    case "utf8":
      return Buffer.concat([BOMS.utf8, Buffer.from(text, "utf8")]);
    case "unicode":
    case "string":
      return Buffer.concat([BOMS.unicode, Buffer.from(text, "utf16le")]);
    case "bigendianunicode":
      return Buffer.concat([BOMS.bigendianunicode, utf16be(text)]);
    case "utf32": {
      const cps = [...text].map((c) => c.codePointAt(0));
      const b = Buffer.alloc(cps.length * 4);
      cps.forEach((cp, i) => b.writeUInt32LE(cp, i * 4));
      return Buffer.concat([BOMS.utf32, b]);
    }
    default:
      throw new Error(`encodeText: no model of Set-Content -Encoding ${encoding}`);
  }
}

/** The encoding a file's BOM names, as a 5.1 `-Encoding` value; undefined when it has none. */
function bomEncoding(bytes) {
  const starts = (bom) => bytes.length >= bom.length && bytes.subarray(0, bom.length).equals(bom);
  if (starts(BOMS.utf32)) return "utf32";
  if (starts(BOMS.unicode)) return "unicode";
  if (starts(BOMS.bigendianunicode)) return "bigendianunicode";
  if (starts(BOMS.utf8)) return "utf8";
  return undefined;
}

/** Text split into lines as .NET's StreamReader.ReadLine does (CRLF, LF or CR; no empty last line for a final break). */
function readLines(text) {
  if (text === "") return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (/(\r\n|\n|\r)$/.test(text)) lines.pop();
  return lines;
}

/** What 5.1 `Get-Content` returns for a file of these bytes: the lines, decoded by the BOM (rule files.get-content-decodes-bom). */
function getContentLines(bytes) {
  const enc = bomEncoding(bytes);
  let text;
  if (enc === "utf32") {
    const cps = [];
    for (let i = 4; i + 3 < bytes.length; i += 4) cps.push(bytes.readUInt32LE(i));
    text = String.fromCodePoint(...cps);
  } else if (enc === "unicode") text = bytes.subarray(2).toString("utf16le");
  else if (enc === "bigendianunicode") {
    const b = Buffer.from(bytes.subarray(2));
    for (let i = 0; i + 1 < b.length; i += 2) [b[i], b[i + 1]] = [b[i + 1], b[i]];
    text = b.toString("utf16le");
  } else if (enc === "utf8") text = bytes.subarray(3).toString("utf8");
  else text = bytes.toString("latin1");
  return readLines(text);
}

/** The bytes sshd's stream gives it: Win32-OpenSSH's fopen skips a UTF-8 BOM, nothing else (rule files.sshd-reads-bytes). */
function sshdStream(bytes) {
  return bomEncoding(bytes) === "utf8" ? bytes.subarray(3) : bytes;
}

/**
 * The lines of an authorized_keys file of these bytes as Win32-OpenSSH's sshd reads them (rule files.sshd-reads-bytes):
 * split at LF, each a C string (ending at its first NUL), a trailing CR and surrounding blanks dropped; blank and
 * comment lines left out. A UTF-16 file gives lines such as "\u00ff\u00fes": no key.
 */
function sshdKeyLines(bytes) {
  const stream = sshdStream(bytes);
  const out = [];
  let start = 0;
  while (start < stream.length) {
    let end = stream.indexOf(0x0a, start);
    if (end < 0) end = stream.length;
    let line = stream.subarray(start, end);
    const nul = line.indexOf(0);
    if (nul >= 0) line = line.subarray(0, nul);
    const text = line.toString("latin1").trim();
    if (text !== "" && !text.startsWith("#")) out.push(text);
    start = end + 1;
  }
  return out;
}

/** How sshd sees a key file's encoding, as the probe reports it: 'utf-16le', 'utf-16be', 'utf-32', 'utf-8-bom', 'ascii', or '' for no file. */
function keyFileEncoding(bytes) {
  if (bytes === undefined) return "";
  return (
    { unicode: "utf-16le", bigendianunicode: "utf-16be", utf32: "utf-32", utf8: "utf-8-bom" }[bomEncoding(bytes)] ||
    "ascii"
  );
}

const ADMINISTRATORS = "S-1-5-32-544";
const SYSTEM = "S-1-5-18";
/**
 * What a new file under ProgramData\ssh inherits when the state does not say (`keyFileInheritedSids`): Administrators,
 * SYSTEM and one more reader (BUILTIN\Users, as ProgramData passes it on), so a file nobody restricted is not OK.
 */
const DEFAULT_INHERITED = [SYSTEM, ADMINISTRATORS, "S-1-5-32-545"];

/** A new file's ACL (`{ protected, explicit: SIDs, inherited: SIDs }`): inheritance on, nothing explicit. */
function newFileAcl(inherited = DEFAULT_INHERITED) {
  return { protected: false, explicit: [], inherited: [...inherited] };
}

/** The ACL sshd requires of administrators_authorized_keys: protected, Administrators and SYSTEM explicit. */
function restrictedAcl() {
  return { protected: true, explicit: [ADMINISTRATORS, SYSTEM], inherited: [] };
}

/** The arguments of an `icacls.exe <file> …` line as icacls gets them (single-quoted PowerShell strings unquoted). */
function icaclsArgs(line) {
  return [...line.matchAll(/'((?:[^']|'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2],
  );
}

/** The ACL after `icacls <file> <args>` (rule files.icacls-acl); an Error for arguments icacls refuses. */
function icacls(acl, args) {
  const out = { protected: acl.protected, explicit: [...acl.explicit], inherited: [...acl.inherited] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i].toLowerCase();
    if (a === "/reset") {
      out.explicit = [];
      out.protected = false;
    } else if (a === "/inheritance:r") {
      out.inherited = [];
      out.protected = true;
    } else if (a === "/inheritance:d") {
      out.explicit = [...new Set([...out.explicit, ...out.inherited])];
      out.inherited = [];
      out.protected = true;
    } else if (a === "/inheritance:e") out.protected = false;
    else if (a === "/grant" || a === "/grant:r") {
      const m = /^\*?(S-[\d-]+):\(?[A-Z,()]+\)?$/i.exec(args[++i] || "");
      if (!m) return new Error(`Invalid parameter "${args[i]}"`);
      out.explicit = [...new Set([...out.explicit, m[1].toUpperCase()])];
    } else return new Error(`Invalid parameter "${args[i]}"`);
  }
  return out;
}

/** The SIDs an ACL grants to: explicit, and inherited unless protected. */
function aclSids(acl) {
  return [...new Set([...acl.explicit, ...(acl.protected ? [] : acl.inherited)])].sort();
}

/** What the probe checks (sshd's rule): protected, and Administrators and SYSTEM only. */
function keyFileAclOk(acl) {
  const sids = aclSids(acl);
  return acl.protected && sids.length === 2 && sids.includes(ADMINISTRATORS) && sids.includes(SYSTEM);
}

/**
 * The ACL of a live file through a script's steps, in order (rules files.icacls-acl, files.rename-keeps-acl). `live`
 * is its ACL before (undefined: no file); each step is `{ op: "new-tmp" }` (a fresh temporary file: what its folder
 * passes on, `inherited`), `{ op: "icacls", target: "tmp" | "live", args }` or `{ op: "move" }` (the temporary file
 * takes the live name with its own ACL). Returns `{ live, loosened }`: the ACL after, and how many steps left the live
 * file readable by others (keyFileAclOk false) where it was restricted or absent just before; or `{ error }` for
 * arguments icacls refuses or a step on a file that is not there (the steps after it do not run).
 */
function aclThroughSteps(live, steps, inherited) {
  let tmp;
  let loosened = 0;
  for (const s of steps) {
    const wasOk = live === undefined || keyFileAclOk(live);
    if (s.op === "new-tmp") tmp = newFileAcl(inherited);
    else if (s.op === "move") {
      if (!tmp) return { error: new Error("Move-Item: Cannot find path because it does not exist.") };
      live = tmp;
      tmp = undefined;
    } else if (s.op === "icacls") {
      const target = s.target === "tmp" ? tmp : live;
      if (!target) return { error: new Error("The system cannot find the file specified.") };
      const next = icacls(target, s.args);
      if (next instanceof Error) return { error: next };
      if (s.target === "tmp") tmp = next;
      else live = next;
    }
    if (wasOk && live !== undefined && !keyFileAclOk(live)) loosened++;
  }
  return { live, loosened };
}

module.exports = {
  aclThroughSteps,
  restrictedAcl,
  newFileAcl,
  icaclsArgs,
  icacls,
  aclSids,
  keyFileAclOk,
  RULES,
  encodeText,
  getContentLines,
  sshdKeyLines,
  sshdStream,
  bomEncoding,
  keyFileEncoding,
};
