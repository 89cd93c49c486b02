"""Upgrades: the changes between two releases as a plan, and a scan of the user's code for what the plan says
changed.
"""
