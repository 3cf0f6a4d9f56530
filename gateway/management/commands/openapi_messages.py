"""Keep the Chinese catalog of the contract in step with the schema.

Every title, summary and description of /openapi.json is a msgid of
locale/zh_Hans/LC_MESSAGES/django.po. This command adds the new ones (untranslated), keeps every
translation already made, marks strings the schema no longer has as obsolete (#~, so a reworded
text's old translation is at hand), and compiles django.mo, which is committed. With --check it
changes nothing and fails when a string has no translation or the .mo is older than the .po.
"""

from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from kernel.schema import english_schema, schema_texts

LANGUAGE = "zh_Hans"
HEADER = "Chinese (Simplified) texts of the gateway's OpenAPI contract (/openapi.json?locale=zh)."
METADATA = {
    "Project-Id-Version": "gateway 0.1.0",
    "Language": LANGUAGE,
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=1; plural=0;",
}


def catalog_path() -> Path:
    return Path(settings.LOCALE_PATHS[0]) / LANGUAGE / "LC_MESSAGES" / "django.po"


def _compiled(catalog: polib.POFile) -> dict[str, str]:
    return {entry.msgid: entry.msgstr for entry in catalog.translated_entries()}


class Command(BaseCommand):
    help = (
        "Extract the titles, summaries and descriptions of /openapi.json into the zh_Hans "
        "catalog and compile it; --check lists the strings without a translation."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check",
            action="store_true",
            help="change nothing; exit 1 when a string has no translation or django.mo is stale",
        )

    def handle(self, *args: Any, check: bool, **options: Any) -> None:
        texts = schema_texts(english_schema())
        path = catalog_path()
        old = polib.pofile(str(path), wrapwidth=100) if path.exists() else polib.POFile()
        known = {entry.msgid: entry for entry in old}

        if check:
            self._check(texts, known, path)
            return

        catalog = polib.POFile(wrapwidth=100)
        catalog.header = HEADER
        catalog.metadata = METADATA
        for text, pointers in texts.items():
            entry = known.pop(text, None) or polib.POEntry(msgid=text, msgstr="")
            entry.obsolete = False
            # Where the string appears, for the translator: the first JSON pointers.
            entry.comment = "\n".join(pointers[:3] + (["..."] if len(pointers) > 3 else []))
            entry.occurrences = []
            catalog.append(entry)
        for entry in known.values():  # no longer in the schema
            if entry.msgstr:
                entry.obsolete = True
                catalog.append(entry)
        path.parent.mkdir(parents=True, exist_ok=True)
        catalog.save(str(path))
        catalog.save_as_mofile(str(path.with_suffix(".mo")))
        untranslated = [entry.msgid for entry in catalog.untranslated_entries()]
        fuzzy = [entry.msgid for entry in catalog.fuzzy_entries()]
        self.stdout.write(
            f"{path}: {len(texts)} {ngettext('string', 'strings', len(texts))}, "
            f"{len(untranslated)} untranslated, {len(fuzzy)} fuzzy; django.mo compiled."
        )

    def _check(
        self, texts: dict[str, list[str]], known: dict[str, polib.POEntry], path: Path
    ) -> None:
        missing = [
            text
            for text in texts
            if text not in known or not known[text].translated() or known[text].obsolete
        ]
        problems = [f"no translation: {text!r} ({texts[text][0]})" for text in missing]
        mo_path = path.with_suffix(".mo")
        if path.exists():
            catalog = polib.pofile(str(path))
            compiled = _compiled(polib.mofile(str(mo_path))) if mo_path.exists() else {}
            if compiled != _compiled(catalog):
                problems.append(f"{mo_path} does not match {path}: run openapi_messages")
        if problems:
            raise CommandError(
                f"{len(problems)} {ngettext('problem', 'problems', len(problems))} in the "
                "zh_Hans catalog of the contract:\n" + "\n".join(problems)
            )
        self.stdout.write(
            ngettext(
                "The %(count)d string of the contract has a Chinese translation.",
                "All %(count)d strings of the contract have a Chinese translation.",
                len(texts),
            )
            % {"count": len(texts)}
        )
