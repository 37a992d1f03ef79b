"""The batched env's episode layer, compiled: auto-forced steps, next hands,
rewards and episode ends, written once here for every batched caller
(:class:`allfives_env.vector.VectorAllFives`, the training collector).

Entry points (``step_all_*``, ``reset_all``, ``set_deal``) are the only kernels
Python calls; see :mod:`allfives_env.compiled.state` for the array layout.
"""

from numba import njit, prange

from .encode import encode
from .rules import apply_action, deal_random, forced_action, is_legal, new_game, popcount, side_of, start_hand
from .state import (
    C_AUTO_FORCED,
    C_EPISODE,
    C_HAND_SIZE,
    C_N,
    C_REWARD,
    C_SIDES,
    EPISODE_HAND,
    F_TARGET,
    GAME_OVER,
    HAND_OVER,
    NEXT_LEADER,
    OPTS,
    ORDER,
    REWARD_POINTS,
    REWARD_ZERO_SUM,
    SKIP,
    TO_MOVE,
    WINNERS,
)


@njit(**OPTS)
def episode_over(st, b, episode):
    return st[b, GAME_OVER] == 1 or (st[b, HAND_OVER] == 1 and episode == EPISODE_HAND)


@njit(**OPTS)
def advance_hand(st, b, hands, scores, hstart, rng, cfg):
    """env._advance_hand: deal the next hand in game episodes; (running, dealt)."""
    if episode_over(st, b, cfg[C_EPISODE]):
        return False, False
    if st[b, HAND_OVER]:
        deal_random(st, b, hands, scores, hstart, rng, cfg)
        return True, True
    return True, False


@njit(**OPTS)
def play_forced(st, b, hands, scores, gains, cfg, target):
    """Play the draws and passes that are the only legal action (C1, C3) until a real
    decision or the hand's end; the one auto-forced loop of every compiled caller."""
    while not st[b, HAND_OVER]:
        action = forced_action(st, b, hands)
        if action < 0:
            return
        apply_action(st, b, hands, scores, gains, cfg, target, action)


@njit(**OPTS)
def resolve_forced(st, b, hands, scores, hstart, gains, rng, cfg, target):
    """env._resolve_forced (auto_forced): forced steps, dealing next hands; True if a hand was dealt."""
    dealt = False
    while True:
        running, new = advance_hand(st, b, hands, scores, hstart, rng, cfg)
        dealt = dealt or new
        if not running:
            return dealt
        play_forced(st, b, hands, scores, gains, cfg, target)
        if not st[b, HAND_OVER]:
            return dealt


@njit(**OPTS)
def set_rewards(st, b, scores, hstart, gains, cfg, terminal, rewards):
    """env._set_rewards / _set_win_rewards for every seat."""
    n, sides, mode = cfg[C_N], cfg[C_SIDES], cfg[C_REWARD]
    if mode == REWARD_POINTS:
        for seat in range(n):
            rewards[b, seat] = gains[b, side_of(seat, n)]
    elif mode == REWARD_ZERO_SUM:
        total = 0.0
        for side in range(sides):
            total += gains[b, side]
        for seat in range(n):
            side = side_of(seat, n)
            rewards[b, seat] = gains[b, side] - (total - gains[b, side]) / (sides - 1)
    elif not terminal:
        for seat in range(n):
            rewards[b, seat] = 0.0
    else:
        seat_outcomes(episode_winners(st, b, scores, hstart, sides), n, rewards[b])


@njit(**OPTS)
def episode_winners(st, b, scores, hstart, sides):
    """Bit mask of the sides that won the episode that just ended: the game's winners
    (R25), or in a hand episode the sides that gained the most points this hand."""
    if st[b, GAME_OVER]:
        return st[b, WINNERS]
    best = -1e300
    for side in range(sides):
        best = max(best, scores[b, side] - hstart[b, side])
    winners = 0
    for side in range(sides):
        if scores[b, side] - hstart[b, side] == best:
            winners |= 1 << side
    return winners


@njit(**OPTS, inline='always')
def side_outcome(winners, side):
    """+1 for a side that won the game, -1 for one that lost, 0 for a winner of a drawn game (R25)."""
    if (winners >> side) & 1:
        return 0.0 if popcount(winners) > 1 else 1.0
    return -1.0


@njit(**OPTS)
def seat_outcomes(winners, n, out):
    """``out[seat]``: its side's :func:`side_outcome`."""
    for seat in range(n):
        out[seat] = side_outcome(winners, side_of(seat, n))


@njit(**OPTS, inline='always')
def step_game(b, action, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
              to_move, obs, mask, rewards, terminated, scores_out, new_hand,
              final_obs, final_scores, final_seat, final_outcome, viewer):
    """One env step of game b: apply, resolve forced steps, deal on or auto-reset, observe.
    An ended episode's final observation is seen by ``viewer`` (a seat; -1: the seat to move)."""
    target = fcfg[F_TARGET]
    for side in range(gains.shape[1]):
        gains[b, side] = 0.0
    apply_action(st, b, hands, scores, gains, cfg, target, action)
    if cfg[C_AUTO_FORCED]:
        dealt = resolve_forced(st, b, hands, scores, hstart, gains, rng, cfg, target)
        running = not episode_over(st, b, cfg[C_EPISODE])
    else:
        running, dealt = advance_hand(st, b, hands, scores, hstart, rng, cfg)
    set_rewards(st, b, scores, hstart, gains, cfg, not running, rewards)
    terminated[b] = not running
    if not running:  # auto-reset: keep the ended episode's view and scores
        seat = st[b, TO_MOVE] if viewer < 0 else viewer
        final_seat[b] = seat
        encode(st, b, hands, scores, seat, False, cfg, fcfg, off, final_obs, mask)
        for side in range(scores.shape[1]):
            final_scores[b, side] = scores[b, side]
        seat_outcomes(episode_winners(st, b, scores, hstart, cfg[C_SIDES]), cfg[C_N], final_outcome[b])
        new_game(st, b, hands, scores, hstart, rng, cfg)
        dealt = True
    new_hand[b] = dealt
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out):
    """Write to_move, the mover's observation and mask, and the scores of game b."""
    seat = st[b, TO_MOVE]
    to_move[b] = seat
    encode(st, b, hands, scores, seat, True, cfg, fcfg, off, obs, mask)
    for side in range(scores.shape[1]):
        scores_out[b, side] = scores[b, side]


@njit(**OPTS)
def first_illegal(actions, st, hands):
    """Index of the first game whose action is neither legal nor SKIP, or -1."""
    for b in range(actions.shape[0]):
        if actions[b] != SKIP and not is_legal(st, b, hands, actions[b]):
            return b
    return -1


@njit(**OPTS, inline='always')
def step_or_skip(b, action, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                 to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                 final_obs, final_scores, final_seat, final_outcome, viewers):
    """step_game, or for SKIP leave game b as it is (no rewards, not terminated, no new hand)."""
    if action == SKIP:
        for seat in range(rewards.shape[1]):
            rewards[b, seat] = 0.0
        terminated[b] = False
        new_hand[b] = False
        return
    viewer = viewers[b] if viewers.shape[0] > 0 else -1
    step_game(b, action, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
              to_move, obs, mask, rewards, terminated, scores_out, new_hand,
              final_obs, final_scores, final_seat, final_outcome, viewer)


@njit(**OPTS)
def step_all_serial(actions, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                    to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                    final_obs, final_scores, final_seat, final_outcome, viewers):
    """Validate every action, then step every game; returns the first illegal index or -1.
    ``viewers``: empty, or (B,) the seat each game's final observation is seen by (-1: the mover)."""
    bad = first_illegal(actions, st, hands)
    if bad >= 0:
        return bad
    for b in range(actions.shape[0]):
        step_or_skip(b, actions[b], st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                     to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                     final_obs, final_scores, final_seat, final_outcome, viewers)
    return -1


@njit(**OPTS, parallel=True)
def step_all_parallel(actions, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                      to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                      final_obs, final_scores, final_seat, final_outcome, viewers):
    """step_all_serial with the games spread over threads (numba prange); same results."""
    bad = first_illegal(actions, st, hands)
    if bad >= 0:
        return bad
    for b in prange(actions.shape[0]):
        step_or_skip(b, actions[b], st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                     to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                     final_obs, final_scores, final_seat, final_outcome, viewers)
    return -1


@njit(**OPTS)
def reset_all(st, hands, scores, hstart, rng, cfg, fcfg, off, to_move, obs, mask, scores_out, new_hand):
    """A new game in every env (random deals from each game's stream)."""
    for b in range(st.shape[0]):
        new_game(st, b, hands, scores, hstart, rng, cfg)
        new_hand[b] = True
        observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def set_deal(b, order, leader, start_scores, st, hands, scores, hstart, cfg, fcfg, off,
             to_move, obs, mask, scores_out, new_hand):
    """Start a hand of game b from a given deal order and scores (a new game position)."""
    for t in range(28):
        st[b, ORDER + t] = order[t]
    for side in range(scores.shape[1]):
        scores[b, side] = start_scores[side]
    st[b, GAME_OVER] = 0
    st[b, WINNERS] = 0
    st[b, NEXT_LEADER] = -1
    start_hand(st, b, hands, scores, hstart, leader, cfg[C_N], cfg[C_HAND_SIZE])
    new_hand[b] = True
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)



