"""A record explained for a person: what happened here, why, what not to do, what to do.

Hover, ``errknow.explain`` and ``errknow-ls explain`` all render through this module, in English
or Chinese (``zh*``: the ``_zh`` fields, each falling back to English on its own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from errknow_ls.core.translation import language
from errknow_ls.kb.model import DeadEnd, Record, Workaround, applies, measured

LABELS: dict[str, dict[str, Any]] = {
    "en": {
        "here": "What happened here",
        "why": "Why",
        "dont": "What not to do",
        "do": "What to do",
        "fails": "fails {rate} of the time",
        "works": "works {rate} of the time",
        "fails_counted": "fails in {count} of {cases} reproductions",
        "works_counted": "runs clean in {count} of {cases} reproductions",
        "fails_applied": "applies to {cases} of {variants} reproductions; fails in {count} of {cases}",
        "works_applied": "applies to {cases} of {variants} reproductions; runs clean in {count} of {cases}",
        "applies": "quick fix: {title}",
        "versions": "Affected torch versions",
        "yours_in": "your torch {version} is among them",
        "yours_out": "your torch {version} is not among them",
        "yours_unknown": "your torch {version} has not been checked",
        "docs": "Docs",
        "trust": "Record `{id}`: {tier}, confidence {confidence:.0%}, {evidence} evidence",
        "related": "Related errors",
        "message": "The error",
        "bare": "Only the message was given: without a traceback there are no frames, so no source line.",
        "colon": ": ",
        "fix": "Quick fix",
        "fixes": "Fixes (none is safe to apply unread)",
        "other_fixes": "Other fixes",
        "no_fix": "No automatic fix: see the record.",
        "no_record": "No record explains this error.",
        "not_offered": "{title} (shown only, not applied)",
        "proven": "trains right on {n} test programs",
        "more": (
            "More — the error's text, what not to do, every workaround, torch versions ({tier} record): "
            "{link}"
        ),
        "tiers": {
            "verified": "verified",
            "reproduced": "reproduced",
            "cited": "cited",
            "community": "community",
            "ai_generated": "AI-generated",
        },
    },
    "zh": {
        "here": "这里发生了什么",
        "why": "原因",
        "dont": "不要这样做",
        "do": "应该这样做",
        "fails": "失败率 {rate}",
        "works": "成功率 {rate}",
        "fails_counted": "在 {cases} 个复现中失败 {count} 个",
        "works_counted": "在 {cases} 个复现中有 {count} 个修复后正常运行",
        "fails_applied": "适用于 {variants} 个复现中的 {cases} 个；其中 {count} 个仍然失败",  # noqa: RUF001
        "works_applied": "适用于 {variants} 个复现中的 {cases} 个；其中 {count} 个修复后正常运行",  # noqa: RUF001
        "applies": "快速修复：{title}",  # noqa: RUF001
        "versions": "受影响的 torch 版本",
        "yours_in": "你的 torch {version} 在其中",
        "yours_out": "你的 torch {version} 不在其中",
        "yours_unknown": "你的 torch {version} 尚未核实",
        "docs": "文档",
        "trust": "记录 `{id}`：{tier}，置信度 {confidence:.0%}，证据 {evidence} 条",  # noqa: RUF001
        "related": "相关错误",
        "message": "错误信息",
        "bare": "只给出了错误信息：没有回溯就没有调用帧，因此无法定位源代码行。",  # noqa: RUF001
        "colon": "：",  # noqa: RUF001
        "fix": "快速修复",
        "fixes": "修复（没有可以不经检查直接应用的安全修复）",  # noqa: RUF001
        "other_fixes": "其他修复",
        "no_fix": "没有自动修复：请查看记录。",  # noqa: RUF001
        "no_record": "没有记录能解释这个错误。",
        "not_offered": "{title}（仅供参考，不会自动应用）",  # noqa: RUF001
        "proven": "已在 {n} 个测试程序上训练正确",
        "more": "更多——错误全文、不要这样做、所有解决办法、受影响的 torch 版本（{tier}的记录）：{link}",  # noqa: RUF001
        "tiers": {
            "verified": "已验证",
            "reproduced": "已复现",
            "cited": "有引用来源",
            "community": "社区提供",
            "ai_generated": "AI 生成",
        },
    },
}


@dataclass(frozen=True, slots=True)
class QuickFix:
    """A fix as the quick-fix menu offers it."""

    title: str
    """Exactly the menu's title, its applicability included (``… (unsafe)``)."""
    workaround: int | None
    """Index into the record's ``workarounds`` the fix applies, if any."""
    offered: bool = True
    """False for a display-only fix, which the menu does not offer."""
    preferred: bool = False
    """The one the menu prefers (``isPreferred``)."""
    proven_by: int = 0
    """Programs of the suite that this kind of fix turned into ones that train like their
    hand-written references (``tests/analysis/fixes``): the fix's own evidence."""


@dataclass(slots=True)
class Context:
    """What is known beyond the record: the finding here, the fixes offered, the workspace's torch."""

    here: str | None = None
    here_quotes_message: bool = False
    """``here`` is the exception's own line: the record's message is not quoted again."""
    why: str | None = None
    """Why this finding's pattern raises, in its rule's words: what ``brief`` says instead of the
    record's general root cause."""
    fixes: Sequence[QuickFix] = ()
    torch_version: str | None = None
    related: Mapping[str, str] = field(default_factory=dict)
    """Record id -> signature, for the transition graph's neighbours that are loaded."""
    rest: str | None = None
    """A URI the editor opens for the whole record (``brief`` links it), or None: the command."""


def _percent(rate: float) -> str:
    return f"{rate:.0%}"


def render(
    record: Record, context: Context | None = None, locale: str | None = None, markdown: bool = True
) -> str:
    """The explanation as Markdown, or as plain text (for clients that ask for it)."""
    context = context or Context()
    lang = language(locale)
    label = LABELS[lang]
    code = (lambda text: f"`{text}`") if markdown else (lambda text: text)
    parts: list[str] = []

    def section(title: str, body: str) -> None:
        parts.append(f"**{title}**" if markdown else title.upper())
        parts.append(body)

    if context.here:
        section(label["here"], context.here)
    if not context.here_quotes_message:
        section(label["message"], code(in_language(record.signature_zh, record.signature, lang)))
    section(label["why"], in_language(record.root_cause_zh, record.root_cause, lang))
    if record.dead_ends:
        section(label["dont"], "\n".join(_dead_end(record, i, lang) for i in range(len(record.dead_ends))))
    if record.workarounds:
        section(label["do"], _workarounds(record, context, lang))
    parts.extend(_versions(record, context, lang, markdown))
    if record.official_doc_url:
        link = (
            f"[{record.official_doc_url}]({record.official_doc_url})" if markdown else record.official_doc_url
        )
        parts.append(f"{label['docs']}: {link}")
    trust = label["trust"].format(
        id=record.id,
        tier=tier(record, lang),
        confidence=record.confidence,
        evidence=record.evidence_count,
    )
    parts.append(trust if markdown else trust.replace("`", ""))
    parts.extend(_related(record, context, lang, code))
    return "\n\n".join(parts)


def rate_phrase(rate: float | None, sources: Sequence[str], lang: str, failing: bool) -> str:
    """`` (fails in 4 of 5 reproductions)`` for a measured rate, `` (applies to 1 of 5 reproductions;
    runs clean in 1 of 1)`` for one measured on the variants it is meant for, `` (works 80% of the
    time)`` for a cited one, nothing for none: a count over a few reproductions is not a share of
    the world."""
    said = rate_text(rate, sources, lang, failing)
    return f" ({said})" if said else ""


def rate_text(rate: float | None, sources: Sequence[str], lang: str, failing: bool) -> str:
    """What ``rate_phrase`` says, without its parentheses."""
    if rate is None:
        return ""
    label = LABELS[lang]
    key = "fails" if failing else "works"
    counted = measured(list(sources))
    if counted is not None:
        clean, cases = counted
        count = cases - clean if failing else clean
        scope = applies(list(sources))
        if scope is not None and scope[0] < scope[1]:
            return str(label[key + "_applied"].format(count=count, cases=cases, variants=scope[1]))
        return str(label[key + "_counted"].format(count=count, cases=cases))
    return str(label[key].format(rate=_percent(rate)))


def in_language(zh: str | None, en: str, lang: str) -> str:
    """The Chinese text where asked for and written, else the English."""
    return zh.strip() if lang == "zh" and zh and zh.strip() else en


def ranked_workarounds(record: Record, lang: str) -> list[tuple[int, str]]:
    """(index, text with its rate), best success rate first, unknown rates last; at one rate, the fix
    that applies to more of the reproductions first."""

    def rank(pair: tuple[int, Workaround]) -> tuple[float, float]:
        scope = applies(pair[1].sources)
        return -(pair[1].success_rate if pair[1].success_rate is not None else -1.0), -(
            scope[0] / scope[1] if scope else 1.0
        )

    ranked = sorted(enumerate(record.workarounds), key=rank)
    zh = record.workarounds_zh
    return [
        (
            index,
            in_language(zh[index] if index < len(zh) else None, w.action, lang)
            + rate_phrase(w.success_rate, w.sources, lang, failing=False),
        )
        for index, w in ranked
    ]


def dead_end(record: Record, index: int, lang: str) -> tuple[str, str]:
    """A dead end in ``lang``: what people try, and why it fails (Chinese where written)."""
    dead: DeadEnd = record.dead_ends[index]
    zh = record.dead_ends_zh[index] if index < len(record.dead_ends_zh) else None
    if lang == "zh" and zh and zh.strip():
        action, _, reason = zh.strip().partition(" — ")
        return action, reason
    return dead.action, dead.why_fails


def tier(record: Record, lang: str) -> str:
    """The record's verification tier, as a reader of ``lang`` says it."""
    return str(LABELS[lang]["tiers"].get(record.verification_tier, record.verification_tier))


def _dead_end(record: Record, index: int, lang: str) -> str:
    dead = record.dead_ends[index]
    rate = rate_phrase(dead.fail_rate, dead.sources, lang, failing=True)
    action, reason = dead_end(record, index, lang)
    if not action:
        return f"- {reason}{rate}"
    return f"- {action}{rate} — {reason}" if reason else f"- {action}{rate}"


def brief(record: Record, context: Context, locale: str | None = None, markdown: bool = True) -> str:
    """A finding explained by what to do first: what happened here, the fix the quick-fix menu
    prefers, why, the other fixes, each fix with its rate; the rest of the record (what not to do,
    the error's text, every workaround) one link (``context.rest``) or one command away."""
    lang = language(locale)
    label = LABELS[lang]
    parts = [context.here] if context.here else []

    def section(title: str, body: str) -> None:
        parts.append(
            f"**{title}**{label['colon']}{body}" if markdown else f"{title.upper()}{label['colon']}{body}"
        )

    def line(fix: QuickFix) -> str:
        title = fix.title if fix.offered else label["not_offered"].format(title=fix.title)
        # the fix the menu prefers cites its own evidence; the others, the record's rates only
        proven = label["proven"].format(n=fix.proven_by) if fix.proven_by and fix.preferred else ""
        if fix.workaround is None or fix.workaround >= len(record.workarounds):
            return f"{title} — {proven}" if proven else title
        chosen = record.workarounds[fix.workaround]
        rate = rate_text(chosen.success_rate, chosen.sources, lang, failing=False)
        evidence = "; ".join(part for part in (rate, proven) if part)
        return f"{title} — {evidence}" if evidence else title

    preferred = [fix for fix in context.fixes if fix.preferred]
    others = [fix for fix in context.fixes if not fix.preferred]

    def listed(title: str) -> None:
        heading = f"**{title}**" if markdown else title.upper()
        parts.append(heading + "\n" + "\n".join(f"- {line(fix)}" for fix in others))

    if preferred:
        section(label["fix"], line(preferred[0]))
    elif others:
        listed(label["fixes"])  # nothing is preferred: the fixes still come first
    if context.why:
        section(label["why"], context.why)
    if preferred and others:
        listed(label["other_fixes"])
    if not context.fixes:
        parts.append(label["no_fix"])
    parts.extend(_versions(record, context, lang, markdown, mine_only=True))
    command = f"errknow-ls explain {record.id}"
    if markdown:
        link = f"[`{command}`]({context.rest})" if context.rest else f"`{command}`"
    else:
        link = f"{command} ({context.rest})" if context.rest else command
    parts.append(label["more"].format(tier=tier(record, lang), link=link))
    return "\n\n".join(parts)


def _workarounds(record: Record, context: Context, lang: str) -> str:
    """Ranked by success rate (unknown last), each with the quick fixes that apply it."""
    label = LABELS[lang]
    lines = []
    for rank, (index, text) in enumerate(ranked_workarounds(record, lang), 1):
        lines.append(f"{rank}. {text}")
        lines += [
            f"   - {label['applies'].format(title=fix.title)}"
            for fix in context.fixes
            if fix.workaround == index
        ]
    return "\n".join(lines)


def _versions(
    record: Record, context: Context, lang: str, markdown: bool, *, mine_only: bool = False
) -> list[str]:
    """The affected torch versions and whether the workspace's is among them (``mine_only``: that
    verdict alone, where there is one)."""
    if not record.versions:
        return []
    label = LABELS[lang]
    line = f"{label['versions']}{label['colon']}{', '.join(v.version for v in record.versions)}"
    if context.torch_version:
        affected = record.affects(context.torch_version)
        key = {True: "yours_in", False: "yours_out", None: "yours_unknown"}[affected]
        mine = label[key].format(version=context.torch_version)
        if mine_only:
            return [f"{label['versions']}{label['colon']}{mine}"]
        line += f" — {mine}" if markdown else f" ({mine})"
    return [] if mine_only else [line]


def _related(record: Record, context: Context, lang: str, code: Callable[[str], str]) -> list[str]:
    graph = record.transition_graph
    # A record may name a neighbour under two relations: list it once, where it first appears.
    ids = list(dict.fromkeys([*graph.frequently_confused_with, *graph.leads_to, *graph.preceded_by]))
    if not ids:
        return []
    shown = [
        f"- {code(rid)}" + (f": {_headline(context.related[rid])}" if rid in context.related else "")
        for rid in ids
    ]
    return [LABELS[lang]["related"] + ":\n" + "\n".join(shown)]


def _headline(signature: str, limit: int = 100) -> str:
    """A neighbour's message named by its first clause, not quoted whole."""
    first = signature.split(". ", 1)[0].split(" (", 1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"
