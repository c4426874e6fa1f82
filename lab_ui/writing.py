"""A decoder's text as it is written, for the decoder page: the prompt and what the model wrote
after it (a plain string in session state, beside the prompt it continues), shown as literal text,
and the buttons that write one character, write N with the KV cache (streamed as they come), or
start again. Every view is recomputed from prompt + written through cached(); character i is drawn
with the seed and i (decoder.draw_token), so one click at a time and "write N" write the same text."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from attention_core import decoder as dc
from lab_ui.cache import cached
from lab_ui.figures import decoder as figures
from lab_ui.i18n import t
from lab_ui.lecture import is_whole_page

MODEL = dc.load_decoder()
CONFIG, CHARS = MODEL.config, MODEL.vocab.chars
MAX_WRITTEN = 100  # characters written after one prompt: "write N" streams at most this many
WRITTEN, WRITTEN_FOR = "dc_written", "dc_written_for"  # session state: plain strings, never a result
STREAM = "dc_stream"  # how many characters "write N" asked for, until the step has streamed them
MOVED = "dc_moved"  # the text just changed: on the whole page every step must read it again


@dataclass(frozen=True)
class Settings:
    prompt: str  # as typed ("" reads as a paragraph's start, "\n")
    temperature: float
    top_k: int
    seed: int

    @property
    def base(self) -> str:
        return self.prompt or dc.PARAGRAPH


def written(s: Settings) -> str:
    """What the model has written after this prompt (a new prompt starts again)."""
    if st.session_state.get(WRITTEN_FOR) != s.prompt:
        st.session_state[WRITTEN_FOR], st.session_state[WRITTEN] = s.prompt, ""
    return st.session_state.get(WRITTEN, "")


def show_text(box, s: Settings, text: str) -> None:
    """The prompt and, marked, what the model wrote after it: literal text, never Markdown or HTML."""
    prompt = figures.shown_text(s.base)
    if text:
        box.markdown(t("decoder.text_so_far", prompt=prompt, written=figures.shown_text(text), n=len(text)))
    else:
        box.markdown(t("decoder.text_prompt_only", prompt=prompt))


def stream(box, s: Settings, done: str, n: int) -> str:
    """Write n characters with the cache, each shown as it comes (a progress bar under the text)."""
    ids = cached(dc.read_text, s.base + done).encoded.ids
    bar = st.progress(0.0, text=t("decoder.writing", i=0, n=n))
    for i, g in enumerate(dc.write(MODEL.params, CONFIG, ids, n, s.temperature, s.top_k, s.seed, len(done))):
        done += CHARS[g.token]
        show_text(box, s, done)
        bar.progress((i + 1) / n, text=t("decoder.writing", i=i + 1, n=n))
    bar.empty()
    return done


def next_char(base: str, temperature: float, top_k: int, seed: int) -> None:
    """The button's callback: append the character the model draws next (plain values in, a string kept)."""
    done = st.session_state.get(WRITTEN, "")
    token = cached(dc.next_token, base + done, temperature, top_k, seed, len(done)).token
    st.session_state[WRITTEN], st.session_state[MOVED] = done + CHARS[token], True


def start_again() -> None:
    st.session_state[WRITTEN], st.session_state[MOVED] = "", True


def queue(n: int) -> None:
    """The "write N" button's callback: the step streams them while it draws (placeholders need the run)."""
    st.session_state[STREAM] = n


def text_and_buttons(s: Settings, n: int) -> str:
    """The text so far (streaming the characters "write N" asked for) and, above it, the buttons:
    next character, write n, start again. -> the text written after the prompt."""
    done = written(s)
    row = st.container(horizontal=True, gap="small")  # the buttons, drawn once the text is known
    box = st.empty()
    show_text(box, s, done)
    if n_stream := min(st.session_state.pop(STREAM, 0), MAX_WRITTEN - len(done)):
        done = stream(box, s, done, n_stream)
        st.session_state[WRITTEN], st.session_state[MOVED] = done, True
    if st.session_state.pop(MOVED, False) and is_whole_page():
        st.rerun(scope="app")  # a button reran this step alone: the other steps read the new text too
    left, full = MAX_WRITTEN - len(done), len(done) >= MAX_WRITTEN
    with row:
        args = (s.base, s.temperature, s.top_k, s.seed)
        st.button(
            t("decoder.next_button"), key="dc_next_go", disabled=full, type="primary", on_click=next_char, args=args
        )
        many = min(n, left) or n
        st.button(t("decoder.write_button", n=many), key="dc_many", disabled=full, on_click=queue, args=(many,))
        st.button(t("decoder.again_button"), key="dc_again", disabled=not done, on_click=start_again)
    if full:
        st.caption(t("decoder.full", n=MAX_WRITTEN))
    return done
