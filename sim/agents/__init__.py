"""Agents: one protocol (view in, action out); LLM-free synthetic agents and profiles."""

from sim.agents.profiles import PROFILES, Profile, get_profile
from sim.agents.protocol import Action, Agent, Entry, LedgerRow, View
from sim.agents.synthetic import SyntheticAgent

__all__ = ["Action", "Agent", "Entry", "LedgerRow", "View", "SyntheticAgent", "Profile",
           "PROFILES", "get_profile"]
