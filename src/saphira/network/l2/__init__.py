"""The L2 agent: wires ports into the provider bridges and filters them."""
