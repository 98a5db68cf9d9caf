"""Lower-case chat: a town after a chat language's "coming back from" (``places._RETURN_FROM``) or colloquial French
"sur" counts; the same preposition without the verb does not, nor does an ordinary word after them. A common given
name right after "I am" of a chat language (``places._SELF_INTRODUCTION_BEFORE``) is the speaker's, not a place."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("domani torno da scandicci", "scandicci"),  # Italian "torno da"
     ("ela voltou de mossoró ontem", "mossoró"),  # Portuguese "voltou de"
     ("elle rentre de montbéliard samedi", "montbéliard"),  # French "rentre de"
     ("vuelvo de badalona el lunes", "badalona"),  # Spanish "vuelvo de"
     ("wracam z gniezno jutro", "gniezno"),  # Polish "wracam z", the town uninflected
     ("kom morgen terug uit zaandam", "zaandam"),  # Dutch "terug uit"
     ("je cherche un appart sur villeurbanne", "villeurbanne")],  # colloquial French "sur"
)  # fmt: skip
def test_a_lower_case_town_after_coming_back_from_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["il pacco da scandicci",  # "da" with no return verb before it
     "elle part de montbéliard",  # "de" after a verb that is no return
     "elle rentre de vacances",  # an ordinary word after the return verb
     "wracam z pracy",  # Polish "from work"
     "torna da mario",  # a given name: back from Mario's
     "je suis sur place"],  # "sur" before an ordinary word
)  # fmt: skip
def test_a_lower_case_word_after_a_return_preposition_alone_or_no_town_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize("text", ["yo im lisa", "hey im regina", "ik ben sofia", "Hi, I'm Regina"])
def test_a_common_given_name_after_i_am_is_no_place(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(("text", "place"), [("hey im in sofia", "sofia"), ("hey im in lisa", "lisa"),
                                             ("im sudan ist es heiß", "sudan")])  # fmt: skip
def test_a_place_after_a_location_word_past_i_am_still_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]
