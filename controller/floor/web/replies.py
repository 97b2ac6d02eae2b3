"""What the pages answer besides a page: a refusal in plain text, with its status and why (a
browser is shown it inside the site's frame: frame.py); a form's text field read as text whatever
was sent; a role's name with its article, and who a refusal was said to."""

from __future__ import annotations

from typing import Final

from starlette.datastructures import FormData
from starlette.responses import Response


def refused(status: int, reason: str) -> Response:
    """``status`` with the reason in words (``403 Forbidden: ...``), as text."""
    return Response(f"{status} {reason}\n", status_code=status, media_type="text/plain")


def form_text(form: FormData, name: str) -> str:
    """The form's field ``name`` as text ("" when missing, or a file was sent in its place)."""
    value = form.get(name)
    return value if isinstance(value, str) else ""


def a(word: str) -> str:
    """``word`` with its article, "a" or "an" by how it is spelt: "an auditor", "a supervisor"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


#: Roles named for a department, not a person: no article ("signed in as surveillance").
DEPARTMENTS: Final = frozenset({"surveillance"})


def signed_in_as(role: str) -> str:
    """Who a refusal was said to, in words: "you are signed in as an auditor", "as a
    supervisor", "as surveillance"."""
    return f"you are signed in as {role if role in DEPARTMENTS else a(role)}"
