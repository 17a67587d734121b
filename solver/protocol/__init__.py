"""Line-based JSON protocol (``proliferate-jsonl/1``) so engines in any language can ask for decisions.

Kept out of ``solver/__init__`` so ``import solver`` stays light; import ``solver.protocol.client`` or run
``proliferate serve`` to use it.
"""
