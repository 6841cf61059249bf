"""Property harnesses for the formal proofs (see docs/formal.md) and the SymbiYosys runner."""
