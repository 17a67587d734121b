"""The env's compiled parts (issue 28): every game's state as arrays, stepped by numba kernels.

* :mod:`env.kernels.rng`: one counter-based random stream per game (SplitMix64), its state in
  an array, so a game plays the same alone or among N, on any thread, whatever its neighbours do;
* :mod:`env.kernels.state`: the fixed-slot arrays of N games (counters ``(N, slots, kinds)``,
  per-slot attributes ``(N, slots)``, per-seat ``(N, seats)``), allocated once, and the
  conversion of a :class:`solver.Board` into one game's slots and back;
* :mod:`env.kernels.gains`: what one proliferate adds to every slot under the replacement
  effects in play (616.1), from the card registry turned into tables;
* :mod:`env.kernels.observe`: the observation, masks and globals written into preallocated buffers.

The rules of proliferate, the state-based actions, the value and the optimum come from the
compiled core, :mod:`solver.kernels`; nothing here restates a rule of it.
"""
