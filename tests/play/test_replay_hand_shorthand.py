"""``allfives replay`` navigation: ``h K``, ``hand K`` and the shorthand ``hK`` all jump to the first position
of hand K (the command reader, :func:`allfives_env.play.replay._replay_command`); a bare number is not a jump
but a hint to type ``h K``."""

import pytest

from allfives_env.play.replay import _replay_command

HAND_STARTS = [0, 10, 25]  # three hands: positions 0..9, 10..24, 25..total-1
TOTAL = 40


@pytest.mark.parametrize("line", ["h 2", "hand 2", "h2", "H2", "  h2  "])
def test_every_form_of_the_hand_command_jumps_to_the_hands_first_position(line):
    assert _replay_command(line, 0, TOTAL, HAND_STARTS) == HAND_STARTS[1]


def test_the_shorthand_checks_the_hand_number_as_the_long_form_does():
    assert _replay_command("h3", 0, TOTAL, HAND_STARTS) == HAND_STARTS[2]  # the last hand
    assert _replay_command("h4", 0, TOTAL, HAND_STARTS).startswith("Give a hand number from 1 to 3")
    assert _replay_command("h0", 0, TOTAL, HAND_STARTS).startswith("Give a hand number from 1 to 3")
    assert _replay_command("2", 0, TOTAL, HAND_STARTS) == "To jump to hand 2, type 'h 2' (hands 1 to 3)."
