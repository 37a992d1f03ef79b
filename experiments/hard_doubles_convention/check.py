"""Check the convention's reading never forbids a tile the partner truly holds (Conv partners)."""
import sys
import allfives_env.arena.game as ag
from allfives_env.agents.search import SearchAgent
from allfives_env.rules.config import RulesConfig
sys.path.insert(0, "/work/scratch")
from conv3.conv import Conv

stats = {"reads": 0, "bad": 0, "forbidden_bits": 0, "overrides": 0}
orig = ag.choose_action


def checked(game, agent):
    before_hands = list(game.hands)
    out = orig(game, agent)
    if isinstance(agent, Conv) and agent.reader is not None and hasattr(agent.reader, "last_forbid"):
        partner = (agent.seat + 2) % 4 if hasattr(agent, "seat") else None
        f = agent.reader.last_forbid
        for s in range(4):
            if f[s]:
                stats["forbidden_bits"] += bin(int(f[s])).count("1")
                if int(f[s]) & before_hands[s]:
                    stats["bad"] += 1
        stats["reads"] += 1
        del agent.reader.last_forbid
    return out


ag.choose_action = checked
config = RulesConfig(num_players=4)
for g in range(int(sys.argv[1])):
    agents = [Conv(x=float(sys.argv[2])), SearchAgent(engine="compiled"), Conv(x=float(sys.argv[2])),
              SearchAgent(engine="compiled")]
    ag.play_game(config, agents, 900000 + g)
    stats["overrides"] += agents[0].overrides + agents[2].overrides
print(stats)
