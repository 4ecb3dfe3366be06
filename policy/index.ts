import { PolicyPack, ReportViolation } from "@pulumi/policy";
import { resourceRules, ResourceView, stackRules } from "./rules";

// Constructing the pack starts the policy server, so nothing else lives here: the rules are in rules.ts.
new PolicyPack("windows-estate", {
  policies: [
    ...resourceRules.map((rule) => ({
      name: rule.name,
      description: rule.description,
      enforcementLevel: rule.enforcementLevel,
      validateResource: (args: ResourceView, report: ReportViolation) => rule.validate(args, report),
    })),
    ...stackRules.map((rule) => ({
      name: rule.name,
      description: rule.description,
      enforcementLevel: rule.enforcementLevel,
      validateStack: (args: { resources: ResourceView[] }, report: ReportViolation) =>
        rule.validate(args.resources, report),
    })),
  ],
});
