// The stand-in's rules for names (see index.js).

/** @type {{ id: string, area: string, rule: string, source: string, rows: number[] }[]} */
const RULES = [];

module.exports = { RULES };
