// Display: being built; see docs/ARCHITECTURE.md.
