"""Simulated platform module (to be filled)."""

ENDPOINTS: list = []
HOSTS: dict = {}
