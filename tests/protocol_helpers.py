"""Boards shared by the protocol tests."""

from __future__ import annotations

from benchmarks.boards import slow_board

__all__ = ["slow_board"]
