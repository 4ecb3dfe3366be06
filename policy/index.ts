import { PolicyPack, ReportViolation } from "@pulumi/policy";
import { resourceRules, stackRules } from "./rules";

// Constructing the pack starts the policy server, so nothing else lives here: the rules are in rules.ts.
new PolicyPack("windows-estate", {
  policies: [
    ...resourceRules.map((rule) => ({
      name: rule.name,
      description: rule.description,
      enforcementLevel: rule.enforcementLevel,
      validateResource: (
        args: { type: string; name: string; props: Record<string, unknown> },
        report: ReportViolation,
      ) => rule.validate({ type: args.type, name: args.name, props: args.props }, (m) => report(m)),
    })),
    ...stackRules.map((rule) => ({
      name: rule.name,
      description: rule.description,
      enforcementLevel: rule.enforcementLevel,
      validateStack: (
        args: { resources: { type: string; name: string; props: Record<string, unknown> }[] },
        report: ReportViolation,
      ) =>
        rule.validate(
          args.resources.map((r) => ({ type: r.type, name: r.name, props: r.props })),
          (m) => report(m),
        ),
    })),
  ],
});
