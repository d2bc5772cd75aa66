// MemoryMatch: being built; see docs/ARCHITECTURE.md.
