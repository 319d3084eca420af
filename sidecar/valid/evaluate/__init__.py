"""Trap-set evaluation: VALID against an unfiltered baseline, scored cell by cell."""
