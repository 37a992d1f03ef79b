"""Rankings of a pool that stay sound when strength is not transitive: α-Rank and Nash averaging.

Elo (:mod:`.ratings`) gives each agent one number, so it cannot say that
``a`` beats ``b``, ``b`` beats ``c`` and ``c`` beats ``a``: a rock-paper-scissors
pool gets three equal ratings, exactly as a pool of identical agents would.
Both rankings here start from the round robin's win-rate matrix ``P``
(``P[i, j]``: agent ``i``'s win rate against ``j``, draws half) and look at
the whole matrix instead:

- **α-Rank** (Omidshafiei et al. 2019), computed by OpenSpiel's
  :mod:`open_spiel.python.egt.alpharank`: the stationary distribution of an
  evolutionary process in which a population that plays one agent is taken
  over by a mutant that wins more often against it. Agents in a cycle share
  the mass; an agent outside the process's sink gets (nearly) none.
- **Nash averaging** (Balduzzi et al. 2018): the maximum-entropy Nash
  equilibrium ``p`` of the symmetric zero-sum meta-game ``A = P - P^T`` (the
  row agent's win rate minus the column agent's), and each agent's skill
  ``A @ p``, its mean edge against the equilibrium mixture. The skill is 0 for
  every agent in the equilibrium and negative for the others, and adding a
  copy of an agent to the pool changes nobody's skill.

Every function is pure: numbers in, a dict out (for ``--json``); the text
tables are in :mod:`.tables`.
"""

import numpy as np

#: α-Rank's selection intensity and population size (OpenSpiel's defaults of ``alpharank.compute``).
#: The selection exponent is ``m * alpha * (P[r, s] - P[s, r])``, so with win rates as payoffs a
#: win-rate edge of 0.01 already weighs 100: the ranking is the large-alpha one α-Rank is defined by.
ALPHARANK_ALPHA = 100.0
ALPHARANK_POPULATION = 50
#: OpenSpiel's α-Rank ranks masses equal to this many decimals as ties (``utils.cluster_strats``).
RANK_DECIMALS = 4
#: LP / optimiser tolerance of the Nash equilibrium (probabilities below it count as 0).
NASH_TOL = 1e-9
OPENSPIEL_INSTALL = 'pip install -e ".[openspiel]"'
NASH_IMPLEMENTATION = "max-entropy Nash of P - P^T by scipy linprog + SLSQP"
SCIPY_INSTALL = "pip install scipy"


def win_rate_matrix(rating: dict):
    """``(P, specs)`` from a :func:`~allfives_env.arena.ratings.rate_agents` result: ``P[i, j]`` is
    agent ``i``'s score rate against ``j`` over the round robin's pairwise results (win 1, equal
    scores 1/2; with 3 players the pairs of every triple's games), with 1/2 on the diagonal."""
    pairwise = rating.get("pairwise")
    if pairwise is None:
        raise ValueError("the rating has no 'pairwise' results; rate the pool again with rate_agents")
    score, games = np.asarray(pairwise["score"], dtype=float), np.asarray(pairwise["games"], dtype=float)
    specs = [a["spec"] for a in rating["agents"]]
    off = ~np.eye(len(specs), dtype=bool)
    if score.shape != (len(specs), len(specs)) or np.any(games[off] <= 0):
        raise ValueError("the rating's pairwise results do not cover every pair of its agents")
    rates = np.full(score.shape, 0.5)
    rates[off] = score[off] / games[off]
    return rates, specs


def alpha_rank(win_rates, specs, alpha: float = ALPHARANK_ALPHA, population_size: int = ALPHARANK_POPULATION) -> dict:
    """α-Rank of a pool from its win-rate matrix, by OpenSpiel (single population, the matrix as the
    row agent's payoff). Each agent gets its stationary mass and a rank (1 = most mass; masses equal
    to :data:`RANK_DECIMALS` decimals share a rank, as in OpenSpiel's tables).

    Needs the ``openspiel`` extra; without it, a ``ValueError`` says how to install it.
    """
    rates = _check_win_rates(win_rates, specs)
    if not alpha > 0 or population_size < 2:
        raise ValueError(f"alpha must be > 0 and population_size >= 2; got {alpha} and {population_size}")
    alpharank, utils = openspiel_alpharank()
    with np.errstate(over="ignore", under="ignore"):  # exp(m * u) of decisive edges overflows to a 0 probability
        _, _, pi, _, _ = alpharank.compute([rates], m=population_size, alpha=alpha)
    mass = np.clip(np.real(pi), 0.0, None)  # the eigenvector's -1e-60s are zeros
    mass = mass / mass.sum()
    ranks = _dense_ranks(utils.cluster_strats(mass, matching_decimals=RANK_DECIMALS), len(specs))
    return {
        "method": "alpharank", "implementation": "open_spiel.python.egt.alpharank",
        "alpha": float(alpha), "population_size": int(population_size),
        "agents": [{"spec": specs[i], "mass": float(mass[i]), "rank": ranks[i]} for i in range(len(specs))],
    }


def openspiel_alpharank():
    """OpenSpiel's ``(alpharank, utils)`` modules, or a one-line ``ValueError`` saying how to install them."""
    try:
        from open_spiel.python.egt import alpharank, utils
    except ImportError as exc:
        raise ValueError(f"α-Rank needs OpenSpiel ({exc}); install it with {OPENSPIEL_INSTALL}") from None
    return alpharank, utils


def nash_averaging(win_rates, specs) -> dict:
    """Nash averaging of a pool from its win-rate matrix ``P``: the maximum-entropy Nash equilibrium
    ``p`` of the zero-sum meta-game ``A = P - P^T``, each agent's mass in it and its Nash-averaged
    skill ``(A @ p)[i]`` (0 for the agents in the equilibrium, below 0 for the others).

    Solved with scipy alone (OpenSpiel's ``nash_averaging`` needs cvxpy): linear programs find the
    equilibria's joint support, then SLSQP maximises the entropy over the equilibria on it.
    """
    rates = _check_win_rates(win_rates, specs)
    game = rates - rates.T
    p = max_entropy_nash(game)
    skill = game @ p
    skill[np.abs(skill) < NASH_TOL] = 0.0  # rounding of the equilibrium's exact 0s
    return {
        "method": "nash", "implementation": NASH_IMPLEMENTATION,
        "agents": [{"spec": specs[i], "mass": float(p[i]), "skill": float(skill[i])} for i in range(len(specs))],
    }


def scipy_optimize():
    """scipy's ``(linprog, minimize)``, or a one-line ``ValueError`` saying how to install scipy (the set-up
    installs it; an environment-only install does not)."""
    try:
        from scipy.optimize import linprog, minimize
    except ImportError as exc:
        raise ValueError(f"Nash averaging needs scipy ({exc}); install it with {SCIPY_INSTALL}") from None
    return linprog, minimize


def max_entropy_nash(game, tol: float = NASH_TOL):
    """The maximum-entropy symmetric Nash equilibrium of the antisymmetric zero-sum matrix ``game``.

    The game's value is 0, so its symmetric equilibria are the polytope ``{p >= 0, sum p = 1,
    game @ p <= 0}``. One LP per agent maximises that agent's mass over it; the agents with a
    positive maximum are the joint support (an equilibrium's support is inside it, and the
    maximum-entropy one fills it). When the LPs all find one point, the equilibrium is unique;
    otherwise SLSQP maximises the entropy on the support, from the LPs' mean.
    """
    linprog, minimize = scipy_optimize()
    game = np.asarray(game, dtype=float)
    n = len(game)
    ones, zeros = np.ones((1, n)), np.zeros(n)
    points = []
    for i in range(n):
        res = linprog(-np.eye(n)[i], A_ub=game, b_ub=zeros, A_eq=ones, b_eq=[1.0], bounds=(0, 1), method="highs")
        if res.status != 0:
            raise ValueError(f"no Nash equilibrium found for the meta-game ({res.message})")
        points.append(np.clip(res.x, 0.0, None))
    points = np.array(points)
    start = points.mean(axis=0)
    if np.allclose(points, points[0], atol=tol):
        return _normalised(points[0], tol)
    support = np.flatnonzero(points.max(axis=0) > tol)
    sub = game[:, support]

    def neg_entropy(q):
        return float(np.sum(q * np.log(q)))

    res = minimize(neg_entropy, start[support], jac=lambda q: np.log(q) + 1.0, method="SLSQP",
                   bounds=[(1e-15, 1.0)] * len(support),
                   constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1.0, "jac": lambda q: np.ones_like(q)},
                                {"type": "ineq", "fun": lambda q: -(sub @ q), "jac": lambda q: -sub}],
                   options={"ftol": 1e-14, "maxiter": 500})
    p = np.zeros(n)
    p[support] = res.x
    if not res.success or np.max(game @ p) > 1e-7:  # never worse than an equilibrium the LPs found
        p = start
    return _normalised(p, tol)


def _normalised(p, tol):
    p = np.where(p > tol, p, 0.0)
    return p / p.sum()


def _dense_ranks(clusters, n):
    """Rank 1, 2, ... by mass, best first, from OpenSpiel's ``{mass: agent indices}`` clusters."""
    ranks = [0] * n
    for rank, (_, members) in enumerate(sorted(clusters.items(), key=lambda kv: -kv[0]), start=1):
        for i in members:
            ranks[int(i)] = rank
    return ranks


def _check_win_rates(win_rates, specs):
    rates = np.asarray(win_rates, dtype=float)
    n = len(specs)
    if n < 2 or rates.shape != (n, n):
        raise ValueError(f"the win rates must be an n x n matrix for n >= 2 agents; got shape {rates.shape} "
                         f"for {n} agents")
    if not np.all(np.isfinite(rates)) or rates.min() < 0 or rates.max() > 1:
        raise ValueError("the win rates must be numbers from 0 to 1")
    return rates
