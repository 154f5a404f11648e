"""One module per simulated platform; each exports ENDPOINTS and HOSTS (see kopa_replay.sim.registry)."""
