"""The ``paper-digest`` command: ``new`` digest folder, ``build`` its site, ``serve`` it with live reload."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from generator import DISTRIBUTION, __version__
from generator.analysis.embed import DEVICES, PRECISIONS
from generator.build import BuildRequest, build_digest, build_summary
from generator.errors import DigestError
from generator.progress import Reporter, plural
from generator.project import DigestFolder, find_digest_folder
from generator.project.settings import ENGINES, Settings, columns_option, load_settings
from generator.sources.base import PAPER_FIELDS
from generator.sources.identity import ADDRESS_RECORD


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paper-digest",
        description="Turn research-paper abstracts into a searchable static website "
        "(KeyBERT keywords, related papers, MkDocs Material).",
    )
    parser.add_argument("--version", action="version", version=f"{DISTRIBUTION} {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    new = commands.add_parser(
        "new", help="start a digest folder: mkdocs.yml, abstracts/, a publishing workflow"
    )
    new.add_argument("directory", type=Path, metavar="DIR", help="the folder to create (new or empty)")
    new.add_argument(
        "--example", action="store_true", help="fill abstracts/ with the 57 bundled ICML 2024 abstracts"
    )

    def common(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "inputs",
            nargs="*",
            type=Path,
            metavar="INPUT",
            help="paper lists (.txt: collection name, then abstracts separated by blank lines; "
            ".jsonl: one paper per line; .csv/.tsv; .bib; .json: CSL-JSON or OpenReview notes; "
            ".xml/.atom: an arXiv API response) or folders of them (default: the digest folder's "
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
            "--project",
            type=Path,
            metavar="DIR",
            help="the digest folder, holding mkdocs.yml (default: the current folder); "
            "docs/, site/ and the cache are kept there",
        )
        command.add_argument(
            "--docs-dir", type=Path, help="where the generated Markdown goes (default: docs/ in the digest)"
        )
        command.add_argument(
            "--model", help="sentence-transformers model for embeddings (default: all-MiniLM-L6-v2)"
        )
        command.add_argument(
            "--device",
            choices=DEVICES,
            help="where the model runs (default: auto, a CUDA GPU, else Apple MPS, else the CPU)",
        )
        command.add_argument(
            "--precision",
            choices=PRECISIONS,
            help="arithmetic for embeddings (default: auto: float16 on a GPU; on a CPU bfloat16 where it "
            "has it natively, else float32)",
        )
        command.add_argument(
            "--engine",
            choices=ENGINES,
            help="what renders the pages: mkdocs (MkDocs + Material, the default) or zensical "
            "(needs pip install 'paper-digest-site[zensical]')",
        )
        command.add_argument(
            "--cache-dir", type=Path, help="cache folder (default: .cache/paper-digest in the digest)"
        )
        command.add_argument(
            "--ray",
            metavar="ADDRESS",
            help="embed with Ray Data on a Ray cluster (auto, HOST:6379, ray://HOST:10001, or local for "
            "an instance on this machine); needs pip install 'paper-digest-site[ray]'",
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
    build.add_argument("--no-site", action="store_true", help="write the Markdown only; render no site")
    build.add_argument(
        "--keep-going",
        action="store_true",
        help="build from the records that can be read and list every one that cannot (file:line and "
        "why) at the end; by default the first unreadable record stops the build before anything is written",
    )

    serve = commands.add_parser(
        "serve",
        help="build the site, serve it, and rebuild it (and reload the page) when abstracts/, mkdocs.yml, "
        "site_templates/ or pyproject.toml change",
    )
    common(serve)
    serve.add_argument(
        "--dev-addr", help="address to serve on (default: dev_addr in mkdocs.yml, else 127.0.0.1:8000)"
    )
    for command in (build, serve):
        command.add_argument(
            "--site-dir", type=Path, help="where the built site goes (default: site/ in the digest)"
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        if arguments.command == "new":
            return _new(arguments)
        reporter = Reporter(quiet=arguments.quiet)
        folder = find_digest_folder(arguments.project)
        docs_dir = (arguments.docs_dir or folder.root / "docs").absolute()
        no_site = arguments.command == "build" and arguments.no_site
        site_dir = None if no_site else (arguments.site_dir or folder.root / "site").absolute()
        # The addresses are those of the pages in this docs folder: beside the digest's own docs, the
        # digest's record; a build into other docs (--docs-dir) keeps its own beside them.
        record = docs_dir.parent / ADDRESS_RECORD
        keep_going = arguments.command == "build" and arguments.keep_going

        def request(settings: Settings) -> BuildRequest:
            inputs = tuple(arguments.inputs) or tuple(settings.resolve(p) for p in settings.inputs)
            # A build waits for a rebuild of serve's to finish; serve leaves a busy folder to the build.
            waits = arguments.command == "build"
            return BuildRequest(
                inputs, docs_dir, site_dir, arguments.name, arguments.refit, record, keep_going, waits
            )

        if arguments.command == "build":
            settings = _settings(arguments, folder)
            result = build_digest(settings, request(settings), reporter)
            reporter.result(build_summary(result, docs_dir, site_dir))
            if result.skipped:
                reporter.result(_skipped_summary(result.skipped))
        else:
            from generator.preview import Preview, PreviewTarget

            def target() -> PreviewTarget:
                """Read afresh before each rebuild: pyproject.toml may have changed."""
                settings = _settings(arguments, folder)
                return PreviewTarget(settings, request(settings))

            Preview(target, reporter, arguments.dev_addr).serve()
    except DigestError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; the previous site was left as it was", file=sys.stderr)
        return 130
    return 0


def _new(arguments: argparse.Namespace) -> int:
    from generator.project.scaffold import new_digest

    made = new_digest(arguments.directory, example=arguments.example)
    inputs = sum(1 for name in made.files if name.startswith("abstracts/") and name.endswith(".txt"))
    print(f"new digest in {made.root}:")
    for name in made.files:
        if not (name.startswith("abstracts/") and name.endswith(".txt")):
            print(f"  {name}")
    if inputs:
        print(f"  abstracts/ ({plural(inputs, 'file')} of the ICML 2024 example)")
    print(f"the publishing workflow installs {made.install.requirement} (requirements.txt)")
    if made.install.warning:
        print(f"warning: {made.install.warning}", file=sys.stderr)
    step = "" if inputs else "put your paper files in abstracts/, then "
    print(f"next: cd {arguments.directory} && {step}paper-digest build (or paper-digest serve to preview)")
    print(f"then commit the folder with the {ADDRESS_RECORD} the build writes: it keeps page addresses")
    return 0


def _skipped_summary(skipped: Sequence[str]) -> str:
    """Every record ``--keep-going`` passed over, one a line, printed last so none scrolls away."""
    listing = "".join(f"\n  {problem}" for problem in skipped)
    count = plural(len(skipped), "unreadable record")
    them = "it" if len(skipped) == 1 else "them"
    return f"skipped {count} (--keep-going); fix {them} and build again:{listing}"


def _settings(arguments: argparse.Namespace, folder: DigestFolder) -> Settings:
    settings = replace(load_settings(folder.root), mkdocs_config=folder.config_file)
    if arguments.model:
        settings = replace(settings, model=arguments.model)
    if arguments.precision:
        settings = replace(settings, precision=arguments.precision)
    if arguments.device:
        settings = replace(settings, device=arguments.device)
    if arguments.engine:
        settings = replace(settings, engine=arguments.engine)
    if arguments.ray:
        settings = replace(settings, ray_address=arguments.ray)
    if arguments.cache_dir:
        settings = replace(settings, cache_dir=arguments.cache_dir.absolute())
    if arguments.columns:
        given = dict(settings.columns)
        for option in arguments.columns:
            given.update(columns_option(option))
        settings = replace(settings, columns=tuple(given.items()))
    return settings


if __name__ == "__main__":  # `python -m generator.cli` runs the same commands as `python -m generator`
    raise SystemExit(main())
