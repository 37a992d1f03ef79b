"""``allfives watch``: the game's final position is shown once (titled "final position", with the last
hand's scoring), followed by the score sheet; it is not drawn a second time before the sheet."""

import io

from allfives_env.agents.registry import make_agent
from allfives_env.play import make_console, watch_session
from allfives_env.rules.config import RulesConfig


def test_watched_game_shows_its_final_position_once():
    config = RulesConfig(num_players=2, target=30)
    out = io.StringIO()
    watch_session(config, [make_agent("greedy"), make_agent("greedy")], ["player_0", "player_1"], 1,
                  make_console(out, color=False, width=100), sleep=lambda s: None)
    text = out.getvalue()
    assert text.count("All Fives - final position") == 1
    assert text.rindex("All Fives - final position") < text.rindex("Scores")
