import { readableStderr } from "../../../providers/ssh/clixml";

const win = require("../../lab/windows-51");

// What Windows PowerShell 5.1 writes to a redirected stderr under -EncodedCommand for a failing Get-Item, with the
// module-loading progress record before it (the shape reported in PowerShell/PowerShell#5912 and #16678).
const SAMPLE =
  "#< CLIXML\r\n" +
  '<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">' +
  '<Obj S="progress" RefId="0"><TN RefId="0"><T>System.Management.Automation.PSCustomObject</T><T>System.Object</T></TN>' +
  '<MS><I64 N="SourceId">1</I64><PR N="Record"><AV>Preparing modules for first use.</AV><AI>0</AI><Nil />' +
  "<PI>-1</PI><PC>-1</PC><T>Completed</T><SR>-1</SR><SD> </SD></PR></MS></Obj>" +
  "<S S=\"Error\">Get-Item : Cannot find path 'C:\\k\\no_x005F_xfile' because it does not exist._x000D__x000A_</S>" +
  '<S S="Error">At line:1 char:1_x000D__x000A_</S>' +
  '<S S="Error">+ Get-Item C:\\k &amp; &lt;x&gt;_x000D__x000A_</S>' +
  "</Objs>";

test("the error records' text, control characters and `_x` decoded, XML entities too; progress dropped", () => {
  expect(readableStderr(SAMPLE)).toBe(
    "Get-Item : Cannot find path 'C:\\k\\no_xfile' because it does not exist.\r\n" +
      "At line:1 char:1\r\n" +
      "+ Get-Item C:\\k & <x>\r\n",
  );
});

test("text without CLIXML is returned as it is", () => {
  expect(readableStderr("plain error\r\n")).toBe("plain error\r\n");
  expect(readableStderr("")).toBe("");
});

test("text around a block is kept; a block cut short still gives its whole records", () => {
  expect(readableStderr(`before\n${SAMPLE}\r\nafter`)).toMatch(
    /^before\nGet-Item : .*\r\n\+ Get-Item C:\\k & <x>\r\nafter$/s,
  );
  const cut = SAMPLE.slice(0, SAMPLE.indexOf('<S S="Error">At line'));
  expect(readableStderr(cut)).toBe("Get-Item : Cannot find path 'C:\\k\\no_xfile' because it does not exist.\r\n");
});

test("only the Error stream: a warning record is not the error", () => {
  const w =
    '#< CLIXML\r\n<Objs Version="1.1.0.1"><S S="warning">careful_x000D__x000A_</S><S S="Error">bad_x000D__x000A_</S></Objs>';
  expect(readableStderr(w)).toBe("bad\r\n");
});

test("the stand-in's CLIXML (transport.stderr-clixml) reads back as the error it wrote", () => {
  expect(win.rule("transport.stderr-clixml").rows).toEqual([11]);
  const text = "Set-Content : Access to the path 'C:\\ProgramData\\x_y' is denied.\r\nAt line:3 char:1 <&>\r\n";
  const xml: string = win.clixml(text);
  expect(xml.startsWith("#< CLIXML\r\n<Objs ")).toBe(true);
  expect(xml).toContain("_x000D__x000A_</S>");
  expect(readableStderr(xml)).toBe(text);
});
