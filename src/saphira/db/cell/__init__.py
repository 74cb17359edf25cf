"""A cell database (cell0, cell1, ...): the services and compute nodes of one
cell, and, as the compute issue adds them, its instances."""
