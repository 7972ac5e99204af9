"""DiscoEval's training criteria (seed 002, section 4): NSP, NL, SPP and SDT on recovered Wikipedia structure."""
