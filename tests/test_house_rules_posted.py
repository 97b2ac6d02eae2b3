"""The house rules as the table posts them (rules-interpretation.md, House rules; 13:69F-8.3): read
from ``table.toml`` ``[rules]``, journaled with each hand beside its stakes, read back, written in
hand scripts and PHH files, and posted on the display's game line."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
from confighelp import load, problems, section, valid
from test_records_terms import CONFIG, STAKES, _record

from controller.display.view import posted_rules
from controller.history.script import parse_script, write_script
from controller.journal import JsonObject, Record
from controller.journal import tablerecords as rec
from controller.poker.engine.tablesetup import RULE_NAMES, ConfigError, HouseRules, ShortAllIn
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress
from controller.table.core import StakesChanged, TableCore

pytestmark = pytest.mark.fast

#: Every rule posted otherwise than its default (at a stud table and a draw table).
STUD_RULES = HouseRules(
    short_all_in=ShortAllIn.FULL_BET,
    opener_must_bet=False,
    cap_lifts_heads_up=True,
    bring_in_has_option=True,
)


def test_the_rule_names_are_the_house_rules_fields() -> None:
    assert tuple(f.name for f in fields(HouseRules)) == RULE_NAMES


def test_notes_house_rules_no_rules_section_posts_the_defaults() -> None:
    """rules-interpretation.md, House rules: each choice has the default written there (the half-bet
    rule)."""
    settings = load(valid())
    assert settings.rules == HouseRules()
    assert settings.table_setup().rules.short_all_in is ShortAllIn.HALF_BET


def test_notes_house_rules_the_rules_section_is_the_tables_configuration() -> None:
    data = valid()
    data["table"]["game"] = "five-card-stud"  # type: ignore[index]
    section(data, "rules").update(
        short_all_in="full-bet",
        opener_must_bet=False,
        cap_lifts_heads_up=True,
        bring_in_has_option=True,
    )
    settings = load(data)
    assert settings.rules == STUD_RULES
    assert settings.table_setup().rules == STUD_RULES


@pytest.mark.parametrize(
    ("game", "rule", "value", "why"),
    [
        ("mambo", "opener_must_bet", False, "no opener of Mambo Stud is required to bet"),
        ("mambo", "burn_before_each_draw", False, "has no second draw to burn"),
        ("triple-draw", "bring_in_has_option", True, "has no bring-in"),
    ],
)
def test_a_rule_the_game_cannot_apply_is_refused_naming_why(
    game: str, rule: str, value: bool, why: str
) -> None:
    """A setting that cannot take effect is refused, not kept: the key, its value and why."""
    data = valid()
    data["table"]["game"] = game  # type: ignore[index]
    if game == "triple-draw":
        data["table"]["button"] = 1  # type: ignore[index]
        data["stakes"] = {"small_bet": 5, "big_bet": 10, "small_blind": 2, "big_blind": 5}
    section(data, "rules")[rule] = value
    (problem,) = problems(data)
    assert problem.key == f"rules.{rule}"
    assert "expected the key left out: it cannot take effect (" in str(problem)
    assert why in str(problem)


@pytest.mark.parametrize(
    ("rule", "value", "expected"),
    [
        ("short_all_in", "half", 'expected "half-bet" or "full-bet"'),
        ("cap_lifts_heads_up", "yes", "expected true or false"),
        ("raise_cap", 3, "rules.raise_cap"),
    ],
)
def test_a_bad_rule_names_the_key_and_what_is_allowed(
    rule: str, value: object, expected: str
) -> None:
    data = valid()
    section(data, "rules")[rule] = value  # type: ignore[assignment]
    (problem,) = problems(data)
    assert expected in str(problem)


def test_the_terms_carry_the_rules_and_read_back() -> None:
    """docs/journal.md, A hand's terms: the stakes and the rules, each rule by name."""
    terms = rec.HandTerms(STAKES, STUD_RULES)
    data = terms.fields()
    assert data["rules"] == {
        "opener_must_bet": False,
        "short_all_in": "full-bet",
        "cap_lifts_heads_up": True,
        "bring_in_has_option": True,
        "burn_before_each_draw": True,
    }
    assert rec.hand_terms_of({"terms": data}) == terms


def test_terms_without_rules_were_dealt_under_the_full_bet_rule_of_their_time() -> None:
    """A hand journaled before hands recorded their rules was dealt under the full-bet short
    all-in (the default until rules-interpretation.md, Betting structure settled the half-bet rule):
    so it replays."""
    terms = rec.hand_terms_of({"terms": {"stakes": rec.stakes_json(STAKES)}})
    assert terms == rec.HandTerms(STAKES, rec.RULES_BEFORE_JOURNALED)
    assert rec.RULES_BEFORE_JOURNALED.short_all_in is ShortAllIn.FULL_BET


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        (
            {"short_all_in": "half"},
            'terms.rules.short_all_in: expected one of half-bet, full-bet, not "half"',
        ),
        ({"opener_must_bet": 1}, "terms.rules.opener_must_bet: expected true or false, not 1"),
        ({"rake": True}, "terms.rules: field rake is not in the schema; expected opener_must_bet"),
        ("half-bet", 'terms.rules: expected an object, not "half-bet"'),
    ],
)
def test_malformed_rules_in_a_record_are_named(rules: object, message: str) -> None:
    data: JsonObject = {"terms": {"stakes": rec.stakes_json(STAKES), "rules": rules}}  # type: ignore[dict-item]
    with pytest.raises(rec.RecordFormatError, match=message):
        rec.hand_terms_of(data)


def _started(config_rules: HouseRules) -> list[Record]:
    core = TableCore(GAMES["five-card-stud"], replace(CONFIG, rules=config_rules))
    records = []
    for device in ("shoe", "panel"):
        ready: JsonObject = {"device": device, "event": "ready", "outcome": "new_session"}
        ready["boot"] = "b1"
        core.take(rec.DEVICE, ready)
        records.append(_record(len(records) + 1, rec.DEVICE, ready))
    kind, data = rec.input_data(ButtonPress(Button.NEW_HAND), rec.Origin("panel", "b1", 0))
    events = core.take(kind, data)
    decision_kind, decision = rec.decision_data(len(records) + 1, events, core.terms)
    assert decision_kind == rec.HAND_STARTED
    assert rec.hand_terms_of(decision) == rec.HandTerms(STAKES, config_rules)
    records.append(_record(len(records) + 1, kind, data))
    return [*records, _record(len(records) + 1, decision_kind, decision)]


def test_notes_house_rules_a_hand_in_progress_does_not_resume_under_other_rules() -> None:
    """A hand started under the full-bet rule and resumed under the half-bet rule would be
    dealt under two: the start is refused, naming both (rules-interpretation.md, House rules)."""
    journaled = _started(STUD_RULES)
    later = TableCore(GAMES["five-card-stud"], CONFIG)  # the defaults now
    for record in journaled[:-1]:
        later.replay(record)
    with pytest.raises(StakesChanged, match="started under the house rules") as err:
        later.replay(journaled[-1])
    assert "'short_all_in': 'full-bet'" in str(err.value)
    assert "'short_all_in': 'half-bet'" in str(err.value)


def test_a_hand_script_posts_its_rules_and_reads_them_back() -> None:
    """docs/hand-script.md: ``rules`` sets them, so any hand replays under any posted rules."""
    config = replace(CONFIG, rules=STUD_RULES)
    text = write_script("five-card-stud", config, [ButtonPress(Button.NEW_HAND)])
    assert "rules opener-must-bet=no short-all-in=full-bet cap-lifts-heads-up=yes" in text
    assert parse_script(text).config.rules == STUD_RULES
    assert parse_script(text.replace("short-all-in=full-bet", "")).config.rules == replace(
        STUD_RULES, short_all_in=ShortAllIn.HALF_BET
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("rules short-all-in=half", "short-all-in='half': expected half-bet or full-bet"),
        ("rules opener-must-bet=maybe", "opener-must-bet='maybe': expected yes or no"),
        ("rules rake=yes", "rules: unknown 'rake'"),
    ],
)
def test_a_bad_rules_line_in_a_script_is_named(line: str, message: str) -> None:
    text = write_script("mambo", CONFIG, []).replace(
        next(ln for ln in write_script("mambo", CONFIG, []).splitlines() if ln.startswith("rules")),
        line,
    )
    with pytest.raises(ValueError, match=message):
        parse_script(text)


def test_13_69f_8_3_the_game_line_posts_the_rules_beside_the_stakes() -> None:
    """The short all-in rule always; each other rule the game applies only when it differs
    from its default; a rule the game cannot apply never."""
    stud, draw = GAMES["five-card-stud"], GAMES["triple-draw"]
    assert posted_rules(HouseRules(), stud) == "half-bet all-in"
    assert posted_rules(STUD_RULES, stud) == (
        "full-bet all-in · no cap heads-up · opener may check · bring-in has option"
    )
    assert posted_rules(HouseRules(burn_before_each_draw=False), draw) == (
        "half-bet all-in · burn before the first draw only"
    )
    assert posted_rules(HouseRules(opener_must_bet=False), GAMES["mambo"]) == "half-bet all-in"


def test_from_words_refuses_what_as_words_never_writes() -> None:
    assert HouseRules.from_words(STUD_RULES.as_words()) == STUD_RULES
    with pytest.raises(ConfigError, match="rules: short_all_in=3"):
        HouseRules.from_words({"short_all_in": 3})
