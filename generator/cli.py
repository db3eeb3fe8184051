"""The ``paper-digest`` command: ``build`` a digest site, ``serve`` it with live reload."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from generator import __version__
from generator.build import BuildRequest, build_digest
from generator.config import Settings, columns_option, load_settings
from generator.embed import PRECISIONS
from generator.errors import DigestError
from generator.progress import Reporter
from generator.sources.base import PAPER_FIELDS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paper-digest",
        description="Turn research-paper abstracts into a searchable static website "
        "(KeyBERT keywords, related papers, MkDocs Material).",
    )
    parser.add_argument("--version", action="version", version=f"paper-digest {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def common(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "inputs",
            nargs="*",
            type=Path,
            metavar="INPUT",
            help="paper lists (.txt: collection name, then abstracts separated by blank lines; "
            ".jsonl: one paper per line; .csv/.tsv; .bib; .json: CSL-JSON or OpenReview notes; "
            ".xml/.atom: an arXiv API response) or folders of them (default: the 'inputs' setting, "
            "abstracts/)",
        )
        command.add_argument(
            "--columns",
            action="append",
            metavar="FIELD=COLUMN,...",
            help="which CSV/TSV column holds a field, for headers the reader does not know, e.g. "
            "--columns abstract=Summary,title=Paper (fields: " + ", ".join(PAPER_FIELDS) + ")",
        )
        command.add_argument(
            "--config",
            type=Path,
            default=Path("mkdocs.yml"),
            help="MkDocs configuration (default: mkdocs.yml); "
            "its folder is the project folder holding pyproject.toml, site_templates/ and docs/",
        )
        command.add_argument(
            "--docs-dir", type=Path, help="where the generated Markdown goes (default: docs/)"
        )
        command.add_argument(
            "--model", help="sentence-transformers model for embeddings (default: all-MiniLM-L6-v2)"
        )
        command.add_argument(
            "--precision",
            choices=PRECISIONS,
            help="arithmetic for embeddings (default: auto, bfloat16 where the CPU has it natively, "
            "else float32)",
        )
        command.add_argument(
            "--cache-dir", type=Path, help="embedding cache folder (default: .cache/paper-digest)"
        )
        command.add_argument("--name", help="the digest's name (default: from the input files)")
        command.add_argument(
            "--refit",
            action="store_true",
            help="fit topics, the related-papers space and the map afresh; by default the last fit "
            "is reused while at most 5%% of the papers changed, so a small edit leaves the rest as it was",
        )
        command.add_argument(
            "-q", "--quiet", action="store_true", help="print one line per stage, no progress bars"
        )

    build = commands.add_parser("build", help="build the digest: Markdown into docs/, the site into site/")
    common(build)
    build.add_argument("--site-dir", type=Path, help="where the built site goes (default: site/)")
    build.add_argument("--no-site", action="store_true", help="write the Markdown only; skip mkdocs build")

    serve = commands.add_parser("serve", help="build the Markdown, then preview the site with live reload")
    common(serve)
    serve.add_argument("--dev-addr", help="address to serve on (default: 127.0.0.1:8000)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    reporter = Reporter(quiet=arguments.quiet)
    try:
        settings = _settings(arguments)
        docs_dir = (arguments.docs_dir or settings.project_root / "docs").absolute()
        inputs = tuple(arguments.inputs) or tuple(settings.resolve(p) for p in settings.inputs)
        if arguments.command == "build":
            site_dir = None if arguments.no_site else (arguments.site_dir or settings.project_root / "site")
            result = build_digest(
                settings, BuildRequest(inputs, docs_dir, site_dir, arguments.name, arguments.refit), reporter
            )
            how = (
                "the last analysis reused"
                if result.analysis_reused
                else f"{result.embedded} texts embedded, {result.cached} from cache"
            )
            print(f"built {len(result.digest.papers)} papers ({how})", file=sys.stderr)
        else:
            from generator.site import serve_site

            build_digest(
                settings, BuildRequest(inputs, docs_dir, None, arguments.name, arguments.refit), reporter
            )
            serve_site(settings.resolve(settings.mkdocs_config), docs_dir, arguments.dev_addr)
    except DigestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the previous site was left as it was", file=sys.stderr)
        return 130
    return 0


def _settings(arguments: argparse.Namespace) -> Settings:
    config_file = arguments.config.absolute()
    if not config_file.is_file():
        raise DigestError(
            f"{arguments.config} not found: run paper-digest in a digest project folder "
            "(one with mkdocs.yml) or pass --config"
        )
    settings = load_settings(config_file.parent)
    settings = replace(settings, mkdocs_config=config_file)
    if arguments.model:
        settings = replace(settings, model=arguments.model)
    if arguments.precision:
        settings = replace(settings, precision=arguments.precision)
    if arguments.cache_dir:
        settings = replace(settings, cache_dir=arguments.cache_dir.absolute())
    if arguments.columns:
        given = dict(settings.columns)
        for option in arguments.columns:
            given.update(columns_option(option))
        settings = replace(settings, columns=tuple(given.items()))
    return settings
