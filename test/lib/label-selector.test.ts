import { labelSelectorProblem } from "../../lib/label-selector";

// What k8s.io/apimachinery pkg/labels/selector.go `Parse` accepts and refuses (its grammar and NewRequirement's value
// rules; keys and values as pkg/util/validation IsQualifiedName and IsValidLabelValue check them).
test("selectors the API server accepts", () => {
  for (const s of [
    "",
    "app=web",
    "app==web,tier!=front",
    "app",
    "!canary",
    "env in (prod, staging)",
    "env notin (dev)",
    "example.com/drain=yes",
    "app=",
    "size>3,size<10",
    " app = web , tier in (a,b) ",
    "in=notin",
  ])
    expect([s, labelSelectorProblem(s)]).toEqual([s, undefined]);
});

test("selectors the API server refuses, with why", () => {
  expect(labelSelectorProblem("app=web,")).toBe("a selector may not end with ','");
  expect(labelSelectorProblem("app=web=x")).toBe("found '=', expected ',' or the end");
  expect(labelSelectorProblem("app in prod")).toBe("expected '(' after app in");
  expect(labelSelectorProblem("-app=web")).toMatch(/^label key "-app"/);
  expect(labelSelectorProblem("Example.com/app=web")).toMatch(/prefix must be a DNS subdomain/);
  expect(labelSelectorProblem("app=we b")).toBe("found 'b', expected ',' or the end");
  expect(labelSelectorProblem("app=-web")).toMatch(/^label value "-web" of app/);
  expect(labelSelectorProblem("size>big")).toBe("size>big: '>' and '<' need an integer");
  expect(labelSelectorProblem("!app=web")).toBe("found '=' after !app, expected ',' or the end");
  expect(labelSelectorProblem("app ~ web")).toBe("found '~' after app, expected one of =, ==, !=, in, notin, >, <");
});
