"""The knowledge base: record model, loading, lint and matching (core, pydantic, regex)."""

from errknow_ls.kb.index import KnowledgeBase, RecordMatch
from errknow_ls.kb.loader import Problem, builtin_records_dir, load
from errknow_ls.kb.model import Record

__all__ = ["KnowledgeBase", "Problem", "Record", "RecordMatch", "builtin_records_dir", "load"]
