"""The board and the game record, defined once as msgspec Structs: their fields, types and ranges.

These Structs are the definition of board JSON v1 (``docs/board-format.md``) and of the game
record v1 (``docs/analysis.md``).  msgspec decodes and validates JSON text into them in C
while parsing (:data:`BOARD_DECODER`, :data:`RECORD_DECODER`), the JSON Schema files of
:mod:`solver.schema` are generated from them, and a test checks the docs' field tables
against them.  What a type cannot state (ids unique, references to players, Two-Headed Giant
teams, counter kinds, the limits that need the whole board) is checked by the board loader
(:mod:`solver.boardjson`) over the decoded Structs.

msgspec stops at the first problem.  Where a document is bad, :func:`type_problems` lists
*every* problem instead, by a walk of the parsed JSON driven by the Structs' own type
information (:func:`msgspec.inspect.type_info`): the same definition, read by a second
reader on the error path only.  Every problem names its JSON path (``players[1].life``) and
what was expected (``must be an integer``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal

import msgspec
import msgspec.inspect as mi
from msgspec import UNSET, Meta, Struct, UnsetType

from . import limits
from .cards import CARDS, SUPPORTED_CARDS
from .errors import Problem
from .terms import CARD_TYPE_NAMES

__all__ = [
    "BOARD_DECODER",
    "RECORD_DECODER",
    "BoardStruct",
    "EffectStruct",
    "PermanentStruct",
    "PlayerStruct",
    "RecordStruct",
    "RoundStruct",
    "ThresholdStruct",
    "free_form_problem",
    "is_text",
    "join",
    "json_type",
    "keyed",
    "lone_surrogate_path",
    "type_problems",
]

# ---------------------------------------------------------------------- value types
#: A non-empty identifier (players, permanents, teams).
Id = Annotated[str, Meta(min_length=1)]
#: A number of counters, damage: 0 .. MAX_COUNT (docs/limits.md).
Count = Annotated[int, Meta(ge=0, le=limits.MAX_COUNT, description="A number of counters.")]
#: Life, power, toughness: -MAX_SIGNED .. MAX_SIGNED.
Signed = Annotated[int, Meta(ge=-limits.MAX_SIGNED, le=limits.MAX_SIGNED)]
#: Points (worths, threshold amounts): -MAX_POINTS .. MAX_POINTS.
Points = Annotated[float, Meta(ge=-limits.MAX_POINTS, le=limits.MAX_POINTS)]
#: Counters by kind (kinds are normalised and checked by the loader: solver.kinds).
Counters = dict[str, Count]
#: An integer setting whose whole range is part of the interface: its message states the range.
_RANGE = {"whole_range": True}

_KIND = (
    "Counter kind names (122.1: kinds are names). Canonical spellings: '+1/+1', '-1/-1', '+1/+0' (P/T kinds, "
    "both halves signed), 'arena:<n>', otherwise lower-case words ('poison', 'first strike'). The loader also "
    "accepts Forge names (P1P1, M1M1, FIRST_STRIKE), any case and a trailing 'counter(s)'; two keys naming the "
    "same kind after normalisation are an error."
)


class _Strict(Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Unknown fields are errors (a misspelt field must not fall back to its default); defaults are not written."""


class PlayerStruct(_Strict):
    """A player."""

    id: Annotated[Id, Meta(description="The player's id, unique across players and permanents.")]
    team: (
        Annotated[
            Id,
            Meta(
                description="Team name. Required in two_headed_giant (teams of at least two, 810.1, 810.11); "
                "elsewhere it defaults to the player's own id. Duel players must be on different teams."
            ),
        ]
        | UnsetType
    ) = UNSET
    life: (
        Annotated[Signed, Meta(description="Life total. Default 20, or 30 in two_headed_giant (the team's, 810.4).")]
        | UnsetType
    ) = UNSET
    counters: Annotated[
        Counters,
        Meta(
            description="Counters the player has: poison, energy, experience, rad, ticket... In two_headed_giant "
            "poison is the team's shared total (810.10): write it on one head or the same value on every head. " + _KIND
        ),
    ] = {}


class ThresholdStruct(_Strict):
    """A count that matters: reaching 'at' counters of 'kind' on this permanent wins or loses the game for its
    controller, or is worth a number of points. Jumping past 'at' counts (122.7)."""

    kind: Annotated[str, Meta(description="The counter kind counted.")]
    at: Annotated[int, Meta(ge=1, le=limits.MAX_COUNT, description="The count that triggers it.")]
    effect: Annotated[
        Literal["win", "lose"] | Points,
        Meta(
            description="'win' or 'lose' (for the permanent's controller; Darksteel Reactor, Nine Lives) or a "
            "number of points paid once when the count is first reached."
        ),
    ]
    label: Annotated[str, Meta(description="Free text shown in explanations, usually the card name.")] = ""


class PermanentStruct(_Strict):
    """A permanent on the battlefield (only these can be proliferated, 403.3)."""

    # The fields of solver.board.Permanent, in its order: the loader reads a permanent's fields at once, in this
    # order (``msgspec.structs.astuple``, solver.boardjson._Checker.permanents); the lists are decoded as tuples,
    # as a Permanent holds them.
    id: Annotated[Id, Meta(description="The permanent's id, unique across players and permanents.")]
    controller: Annotated[Id, Meta(description="Id of the player who controls it.")]
    types: Annotated[
        tuple[Annotated[str, Meta(extra_json_schema={"enum": list(CARD_TYPE_NAMES)})], ...],
        Meta(
            description="Card types: artifact, battle, creature, enchantment, land, planeswalker, kindred; any "
            "letter case, 'tribal' for kindred; stored lower-case (the schema gives the canonical spelling).",
            extra_json_schema={"uniqueItems": True},
        ),
    ] = ()
    name: Annotated[str, Meta(description="Card name, for people.")] = ""
    power: (
        Annotated[
            Signed,
            Meta(description="Power before counters. Required for creatures, allowed on others (a Vehicle)."),
        ]
        | UnsetType
    ) = UNSET
    toughness: (
        Annotated[
            Signed,
            Meta(description="Toughness before counters. Required for creatures (-1/-1 counters kill at 0, 704.5f)."),
        ]
        | UnsetType
    ) = UNSET
    damage: Annotated[
        Count,
        Meta(description="Damage marked this turn (120.6); lethal with toughness lowered by -1/-1 counters (704.5g)."),
    ] = 0
    counters: Annotated[Counters, Meta(description="Counters on the permanent. " + _KIND)] = {}
    keywords: Annotated[
        tuple[str, ...],
        Meta(
            description="Keyword abilities it has without counters (e.g. 'indestructible', which stops 704.5g but "
            "not 704.5f). Stored lower-case."
        ),
    ] = ()
    subtypes: Annotated[
        tuple[str, ...],
        Meta(description="Subtypes such as 'Saga' or 'Siege'. A Saga (any letter case) needs 'chapters'."),
    ] = ()
    chapters: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=limits.MAX_COUNT,
                description="A Saga's final chapter number (714.2d): with that many lore counters it is sacrificed "
                "(714.4).",
            ),
        ]
        | UnsetType
    ) = UNSET
    protector: (
        Annotated[
            Id,
            Meta(
                description="Battles only: id of the player who protects it (310.9); its defense counters count "
                "for that player."
            ),
        ]
        | UnsetType
    ) = UNSET
    phased_out: Annotated[
        bool, Meta(description="Phased out: treated as though it doesn't exist, so it can't be chosen (702.26b).")
    ] = False
    no_counters: Annotated[
        bool,
        Meta(
            description="It can't have counters put on it (Tatterkite, a creature enchanted by Blossombind): it may "
            "still be chosen if it has counters (701.34a), but proliferate adds none to it."
        ),
    ] = False
    value: (
        Annotated[
            Points,
            Meta(
                description="How much the permanent is worth to its controller, in points (one +1/+1 counter on a "
                "creature is one point); scored when it dies or is sacrificed. Default: derived by the objective."
            ),
        ]
        | UnsetType
    ) = UNSET
    thresholds: Annotated[list[ThresholdStruct], Meta(description="Counts that matter on this permanent.")] = []
    counter_values: Annotated[
        dict[str, Points],
        Meta(
            description="Worth of one counter of a kind on this permanent, overriding the catalogue default "
            "(negative: its controller would rather not have it)."
        ),
    ] = {}


def _parameters() -> list[tuple[str, Any, Any]]:
    """The cards' parameters as effect fields (data in solver.cards.CARDS); each card checks its own range."""
    spans: dict[str, tuple[int, int, list[str]]] = {}
    for card in CARDS.values():
        for p in card.parameters:
            low, high, docs = spans.get(p.name, (p.low, p.high, []))
            spans[p.name] = (min(low, p.low), max(high, p.high), [*docs, f"{card.name}: {p.doc}"])
    return [
        (name, Annotated[int, Meta(ge=low, le=high, description=" ".join(docs), extra=_RANGE)] | UnsetType, UNSET)
        for name, (low, high, docs) in sorted(spans.items())
    ]


#: A card in play that changes what proliferate does: replacement effects (614), Tekuthal's extra proliferates.
#: Its fields beyond ``card`` and ``controller`` are the cards' parameters (:class:`solver.cards.Parameter`).
EffectStruct: type[Struct] = msgspec.defstruct(
    "EffectStruct",
    [
        (
            "card",
            Annotated[
                str,
                Meta(
                    description="The card's printed name (the loader matches case and punctuation loosely).",
                    extra_json_schema={"enum": list(SUPPORTED_CARDS)},
                ),
            ],
        ),
        ("controller", Annotated[Id, Meta(description="Id of the player who controls the card.")]),
        (
            "source",
            Annotated[
                str,
                Meta(
                    description="The permanent whose ability it is, controlled by the effect's controller; required "
                    "for a card whose text names itself (Benevolent Hydra, Mowu, Loyal Companion).",
                    extra={"expected": "a permanent id"},
                ),
            ]
            | UnsetType,
            UNSET,
        ),
        *_parameters(),
    ],
    bases=(_Strict,),
    module=__name__,
)
EffectStruct.__doc__ = "A card in play that changes what proliferate does (614, Tekuthal's extra proliferates)."

Variant = Literal["duel", "free_for_all", "two_headed_giant"]


class BoardStruct(_Strict):
    """Everything a proliferate decision depends on: the variant, who proliferates, the players and the permanents
    with their counters, and the replacement effects in play. The loader (solver.load_board) also checks what a type
    cannot: ids unique across players and permanents, references to players, card types and names, Two-Headed Giant
    teams and poison, counter kinds, and the limits of docs/limits.md that need the whole board."""

    variant: Annotated[
        Variant,
        Meta(
            description="The multiplayer variant: 'duel' (2 players, 10 poison loses, 704.5c), 'free_for_all' (2 or "
            "more players), 'two_headed_giant' (teams of two or more sharing life and poison, 810, 704.6b)."
        ),
    ]
    proliferator: Annotated[Id, Meta(description="Id of the player who proliferates (the decision is theirs).")]
    players: Annotated[
        list[PlayerStruct],
        Meta(
            min_length=1,
            max_length=limits.MAX_PLAYERS,
            description="Every player in the game, in turn order. At most 20 outside two_headed_giant (each player "
            "a seat), 20 teams in it.",
        ),
    ]
    format: Annotated[Literal[1], Meta(description="Format version; only 1 exists.")] = 1
    proliferates: Annotated[
        int,
        Meta(
            ge=1,
            le=limits.MAX_PROLIFERATES,
            extra=_RANGE,
            description="How many times the player proliferates in this resolution (2 for 'proliferate twice'); no "
            "state-based actions happen between them (704.4). Tekuthal, Inquiry Dominus doubles it again.",
        ),
    ] = 1
    team_poison: Annotated[
        Literal["shared", "per_head"],
        Meta(
            description="Two-Headed Giant poison (810.10): 'shared' states the team's total on each head that states "
            "it (the heads agree); 'per_head' gives each head its own count, the team's total being their sum "
            "(Forge's convention).",
            extra={"expected": "one of 'shared', 'per_head' (810.10)"},
        ),
    ] = "shared"
    permanents: Annotated[
        list[PermanentStruct],
        Meta(max_length=limits.MAX_OBJECTS, description="Permanents on the battlefield (403.3)."),
    ] = []
    effects: Annotated[
        list[EffectStruct],  # type: ignore[valid-type]
        Meta(max_length=limits.MAX_EFFECTS, description="Cards in play that change what proliferate does."),
    ] = []


# ---------------------------------------------------------------------- the game record
#: Ids listed once each (the reader checks that; msgspec cannot).  The ``expected`` extras word the problems
#: as the protocol's evaluate entries use them too (solver.protocol.messages), so a choice is refused alike by both.
Ids = Annotated[
    list[Annotated[str, Meta(min_length=1, extra={"expected": "a non-empty string (an id of the board)", "not": 1})]],
    Meta(extra_json_schema={"uniqueItems": True}, extra={"expected": "a list of ids"}),
]
Recipients = Annotated[
    dict[str, Annotated[str, Meta(min_length=1, extra={"expected": "a player id"})]],
    Meta(
        description="Two-Headed Giant: team name -> the chosen head that gets the team's poison (701.34b).",
        extra={"expected": "an object mapping a team name to the chosen head that gets its poison"},
    ),
]


class RoundStruct(_Strict):
    """The choice of one proliferate of the resolution."""

    chosen: Annotated[Ids, Meta(description="Ids chosen in this proliferate.")]
    poison_recipients: Recipients | None = None


class RecordStruct(_Strict):
    """One proliferate decision: the board as it stood when the decision was made and the choice the decider made.
    A game is the lines that share a 'game'. solver.analysis.records also checks what a type cannot: ids listed
    once, the board loads, the decider is its proliferator, the choice is legal under 701.34."""

    game: Annotated[Id | int, Meta(description="Which game the decision belongs to (e.g. Arena 'matchID:gameNumber').")]
    turn: Annotated[int, Meta(ge=0, description="Turn number when the decision was made.")]
    decider: Annotated[Id, Meta(description="The player who chose; must be the board's proliferator.")]
    board: Annotated[BoardStruct, Meta(description="Board JSON v1 before the proliferate.")]
    chosen: Annotated[Ids, Meta(description="Ids chosen; the same in every proliferate unless 'rounds' is given.")]
    poison_recipients: Recipients | None = None
    rounds: (
        Annotated[
            list[RoundStruct],
            Meta(
                min_length=1,
                description="The choice of each proliferate of the resolution (e.g. Tekuthal). The first must repeat "
                "'chosen' and 'poison_recipients'.",
            ),
        ]
        | None
    ) = None
    phase: Annotated[str, Meta(description="Phase or step, free text (e.g. 'main1').")] | None = None
    source: Annotated[str, Meta(description="Where the record came from, free text.")] | None = None
    candidates: (
        Annotated[Ids, Meta(description="Informative: the ids that could be chosen (701.34a), as the importer saw.")]
        | None
    ) = None
    meta: Annotated[dict[str, Any], Meta(description="Free-form metadata (e.g. Arena grpid, gameStateId).")] | None = (
        None
    )


#: Decode and validate JSON text in C; raise msgspec.ValidationError / DecodeError at the first problem.
BOARD_DECODER = msgspec.json.Decoder(BoardStruct)
RECORD_DECODER = msgspec.json.Decoder(RecordStruct)


# ---------------------------------------------------------------------- paths
def join(path: str, key: object) -> str:
    """The path of a field: ``players[0].team``."""
    if isinstance(key, str) and not is_text(key):
        key = json.dumps(key)[1:-1]
    return f"{path}.{key}" if path else str(key)


def keyed(path: str, key: object) -> str:
    """The path of a free-form key, quoted as JSON: ``counters["-1/-1"]``."""
    if not isinstance(key, str):
        return f"{path}[{key!r}]"
    return f"{path}[{json.dumps(key, ensure_ascii=not is_text(key))}]"


def is_text(value: str) -> bool:
    """Valid Unicode text: no lone surrogate (JSON can escape one; no output could carry it)."""
    return value.isascii() or not any("\ud800" <= ch <= "\udfff" for ch in value)


NOT_TEXT = "must be valid Unicode text (it contains a lone surrogate escape such as \\ud800)"


# ---------------------------------------------------------------------- every problem, from the types
@cache
def type_of(struct: type) -> mi.Type:
    """The msgspec type information of a Struct (cached: it is read on every error)."""
    return mi.type_info(struct)


def type_problems(value: Any, struct: type, path: str = "") -> list[Problem]:
    """Every problem of parsed JSON ``value`` against ``struct``'s types and ranges, each at its JSON path.

    The error path's reader of the one definition: for what msgspec refused at its first
    problem, this lists them all (it accepts exactly what msgspec accepts, but for lone
    surrogates, which it refuses as text no output could carry).
    """
    out: list[Problem] = []
    _walk(value, type_of(struct), path, "", out)
    return out


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _walk(value: Any, t: mi.Type, path: str, name: str, out: list[Problem]) -> None:
    """Record every problem of ``value`` against type ``t`` (the field ``name``) at ``path``."""
    extra: Mapping[str, Any] = {}
    if isinstance(t, mi.Metadata):
        extra = t.extra or {}
        t = t.type
    if "expected" in extra:  # the type's own wording of a problem at its own path
        found: list[Problem] = []
        _walk(value, t, path, name, found)
        message = f"must be {extra['expected']}" + (f", not {json_type(value)}" if extra.get("not") else "")
        out.extend(p if p.path != path or p.message == NOT_TEXT else Problem(path, message) for p in found)
        return
    if isinstance(t, mi.StructType):
        _struct(value, t, path, out)
    elif isinstance(t, mi.UnionType):
        _union(value, t, path, name, out)
    elif isinstance(t, mi.StrType):
        if not isinstance(value, str):
            out.append(Problem(path, "must be a string"))
        elif t.min_length and len(value) < t.min_length:
            out.append(Problem(path, "must be a non-empty string"))
        elif t.max_length is not None and len(value) > t.max_length:
            out.append(Problem(path, f"must be at most {t.max_length} characters"))
        elif not is_text(value):
            out.append(Problem(path, NOT_TEXT))
    elif isinstance(t, mi.IntType):
        _int(value, t, path, bool(extra.get("whole_range")), out)
    elif isinstance(t, mi.FloatType):
        _float(value, t, path, out)
    elif isinstance(t, mi.BoolType):
        if not isinstance(value, bool):
            out.append(Problem(path, "must be a boolean"))
    elif isinstance(t, mi.LiteralType):
        if not (value in t.values and type(value) in {type(v) for v in t.values}):
            shown = ", ".join(str(v) for v in t.values)
            if len(t.values) == 1:  # a version
                out.append(Problem(path, f"unsupported {name} {value!r}; this library reads {name} {shown}"))
            else:
                out.append(Problem(path, f"unknown {name or 'value'} {value!r}; expected one of {shown}"))
    elif isinstance(t, mi.ListType | mi.VarTupleType):
        _list(value, t, path, name, out)
    elif isinstance(t, mi.DictType):
        if not isinstance(value, Mapping):
            out.append(Problem(path, "must be an object"))
            return
        if isinstance(t.value_type, mi.AnyType):  # free-form (a record's meta): only what can be written back
            problem = _unwritable(value, path, numbers=True)
            if problem is not None:
                out.append(problem)
            return
        for key, item in value.items():
            kpath = keyed(path, key)
            if not isinstance(key, str):
                out.append(Problem(kpath, "key must be a string"))
                continue
            of_value: list[Problem] = []
            _walk(item, t.value_type, kpath, name, of_value)
            if not is_text(key) and all(p.message == NOT_TEXT for p in of_value):  # the value's type, then text
                out.append(Problem(kpath, NOT_TEXT))
            else:
                out.extend(of_value)
    elif isinstance(t, mi.AnyType):
        problem = _unwritable(value, path, numbers=True)
        if problem is not None:
            out.append(problem)
    elif isinstance(t, mi.NoneType):
        if value is not None:
            out.append(Problem(path, "must be null"))
    else:  # pragma: no cover -- a type the formats do not use
        raise TypeError(f"no check for {t!r}")


def _struct(value: Any, t: mi.StructType, path: str, out: list[Problem]) -> None:
    if not isinstance(value, Mapping):
        out.append(Problem(path, "must be an object"))
        return
    fields = {f.encode_name: f for f in t.fields}
    if t.forbid_unknown_fields and not value.keys() <= fields.keys():
        allowed = ", ".join(sorted(fields))
        out.extend(Problem(join(path, k), f"unknown field (allowed: {allowed})") for k in value if k not in fields)
    for key, f in fields.items():
        if key in value:
            _walk(value[key], f.type, join(path, key), key, out)
        elif f.required:
            out.append(Problem(join(path, key), "required"))


def _members(t: mi.UnionType) -> list[mi.Type]:
    """The members a value can have: ``UNSET`` stands for an absent field, never a value."""
    return list(t.types)  # type_info leaves UNSET out: it stands for an absent field, never a value


def _union(value: Any, t: mi.UnionType, path: str, name: str, out: list[Problem]) -> None:
    members = _members(t)
    if value is None and any(isinstance(m, mi.NoneType) for m in members):
        return
    members = [m for m in members if not isinstance(m, mi.NoneType)]  # null allowed: not what was meant
    if len(members) == 1:
        _walk(value, members[0], path, name, out)
        return
    trials: list[tuple[mi.Type, list[Problem]]] = []
    for member in members:
        found: list[Problem] = []
        _walk(value, member, path, name, found)
        if not found:
            return
        trials.append((member, found))
    fitting = [(member, found) for member, found in trials if _json_kind_fits(value, member)]
    if len(fitting) == 1 and (
        isinstance(
            _bare(fitting[0][0]),
            mi.IntType | mi.FloatType | mi.ListType | mi.VarTupleType | mi.DictType | mi.StructType,
        )
        or all(p.message == NOT_TEXT for p in fitting[0][1])
    ):
        out.extend(fitting[0][1])  # a number out of range, a bad item, bad text: the member's own problems say more
        return
    out.append(Problem(path, f"must be {_describe_all(members)}, not {_shown(value)}"))


def _bare(t: mi.Type) -> mi.Type:
    return t.type if isinstance(t, mi.Metadata) else t


def _json_kind_fits(value: Any, t: mi.Type) -> bool:
    """Whether ``value`` has the JSON type ``t`` reads (what decides which member of a union it was meant for)."""
    if isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.StrType | mi.LiteralType):
        return isinstance(value, str)
    if isinstance(t, mi.IntType):
        return _is_int(value)
    if isinstance(t, mi.FloatType):
        return isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(t, mi.BoolType):
        return isinstance(value, bool)
    if isinstance(t, mi.ListType | mi.VarTupleType):
        return isinstance(value, list)
    if isinstance(t, mi.DictType | mi.StructType):
        return isinstance(value, Mapping)
    if isinstance(t, mi.NoneType):
        return value is None
    return True


def _describe(t: mi.Type) -> str:
    if isinstance(t, mi.Metadata):
        t = t.type
    if isinstance(t, mi.StrType):
        return "a non-empty string" if t.min_length else "a string"
    if isinstance(t, mi.LiteralType):
        return ", ".join(repr(v) for v in t.values)
    if isinstance(t, mi.IntType):
        return "an integer"
    if isinstance(t, mi.FloatType):
        return "a number"
    if isinstance(t, mi.BoolType):
        return "a boolean"
    if isinstance(t, mi.ListType | mi.VarTupleType):
        return "a list"
    if isinstance(t, mi.NoneType):
        return "null"
    return "an object"


def _describe_all(members: list[mi.Type]) -> str:
    parts = [_describe(m) for m in members]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


def json_type(value: object) -> str:
    """The JSON name of a value's type, for messages a caller in any language understands."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    return "an object"


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return repr(value)


def _int(value: Any, t: mi.IntType, path: str, whole_range: bool, out: list[Problem]) -> None:
    low, high = t.ge, t.le
    if _is_int(value) and (low is None or low <= value) and (high is None or value <= high):
        return
    if whole_range and low is not None and high is not None:
        out.append(Problem(path, f"must be an integer from {low} to {high}"))
    elif low is not None and high is not None and low == -high:
        out.append(Problem(path, "must be an integer" if not _is_int(value) else f"must be within ±{high}"))
    elif not _is_int(value) or (low is not None and value < low):
        out.append(Problem(path, "must be an integer" if low is None else f"must be an integer >= {low}"))
    else:
        out.append(Problem(path, f"must be at most {high}"))


def _float(value: Any, t: mi.FloatType, path: str, out: list[Problem]) -> None:
    if not isinstance(value, int | float) or isinstance(value, bool):
        out.append(Problem(path, "must be a number"))
        return
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        out.append(Problem(path, "must be a finite number"))
    elif (t.ge is not None and number < t.ge) or (t.le is not None and number > t.le):
        bound = float(t.le if t.le is not None else t.ge or 0)
        out.append(Problem(path, f"must be within ±{int(bound) if bound == int(bound) else bound}"))


def _list(value: Any, t: mi.ListType | mi.VarTupleType, path: str, name: str, out: list[Problem]) -> None:
    if not isinstance(value, list | tuple):
        out.append(Problem(path, "must be a list"))
        return
    if t.min_length and len(value) < t.min_length:
        out.append(Problem(path, "must not be empty" if t.min_length == 1 else f"needs at least {t.min_length} items"))
    if t.max_length is not None and len(value) > t.max_length:
        out.append(Problem(path, f"{len(value)} {name or 'items'}; the limit is {t.max_length}"))
        return
    for i, item in enumerate(value):
        _walk(item, t.item_type, f"{path}[{i}]", name, out)


def _lone_surrogate(value: object, path: str) -> str | None:
    """The path of the first string or key holding a lone surrogate in a free-form value, or None."""
    bad = _unwritable(value, path)
    return bad.path if bad is not None and bad.message == NOT_TEXT else None


def _unwritable(value: object, path: str, numbers: bool = False) -> Problem | None:
    """The first string or key of a free-form value holding a lone surrogate, or (with ``numbers``) its first
    number that is not finite (NaN, an infinity: parsed from a mapping or by the standard library, no JSON output
    carries it), as a problem at its path; None if every part of it can be written back."""
    stack: list[tuple[str, object]] = [(path, value)]
    while stack:
        at, item = stack.pop()
        if isinstance(item, str):
            if not is_text(item):
                return Problem(at, NOT_TEXT)
        elif isinstance(item, float):
            if numbers and not math.isfinite(item):
                return Problem(at, "must be a finite number")
        elif isinstance(item, Mapping):
            for key, sub in item.items():
                if isinstance(key, str) and not is_text(key):
                    return Problem(join(at, key), NOT_TEXT)
                stack.append((join(at, key), sub))
        elif isinstance(item, list | tuple):
            stack.extend((f"{at}[{i}]", sub) for i, sub in enumerate(item))
    return None


def free_form_problem(value: object) -> Problem | None:
    """The first part of a free-form value (a record's ``meta``) no JSON output could carry: a lone surrogate, or a
    number that is not finite; None if it can be written back as it was read."""
    return _unwritable(value, "", numbers=True)


def field_names(struct: type) -> tuple[str, ...]:
    """The JSON names of a Struct's fields, in order (for the docs' field tables and the schema)."""
    info = type_of(struct)
    assert isinstance(info, mi.StructType)
    return tuple(f.encode_name for f in info.fields)


def required_fields(struct: type) -> frozenset[str]:
    info = type_of(struct)
    assert isinstance(info, mi.StructType)
    return frozenset(f.encode_name for f in info.fields if f.required)


def lone_surrogate_path(value: object) -> str | None:
    """The path of the first string or key holding a lone surrogate (text no output could carry), or None."""
    return _lone_surrogate(value, "")
