/**
 * A receipt as a dice card (SPEC §13 "Results are seen"): a plain object the
 * extension draws, and that tests read with no DOM.
 *
 * The card is derived from the receipt's own attributes only, with the same
 * reading as gmtags' one-line cards (`gmtags/tags/card.py`,
 * `gmtags/checks/record.py`): what was thrown against what, the faces with
 * those not kept marked, the total or the successes, the outcome tier (else
 * the result) in words, what was spent; a clock's segments; what a sheet
 * command changed; why a command was refused.
 */

/** @typedef {import('./receipts.js').Receipt} Receipt */

/**
 * @typedef {object} Die
 * @property {string} face What the die shows (`5`, `+`, `−`).
 * @property {boolean} kept Whether the result kept it.
 * @property {boolean} [hit] For a pool: whether it counted as a success.
 * @property {boolean} [dark] A dark die (dice-highest's `dark=`).
 */

/**
 * @typedef {object} Card
 * @property {string} command The tag's name (`data-gmtags-command`).
 * @property {string} result The receipt's result (`data-gmtags-result`).
 * @property {string} outcome The outcome tier, else the result (`data-gmtags-outcome`).
 * @property {string} tone `success`, `critical-success`, `failure`, `critical-failure`, `refused` or `ok`.
 * @property {string} icon A marker that says the kind without colour.
 * @property {string} title What the card is about (`Ward check`, `Alarm raised`).
 * @property {string} who Who it concerns, or ''.
 * @property {string} roll What was thrown against what (`2d6+4 vs 9`), or ''.
 * @property {Die[]} dice The faces thrown, in order.
 * @property {string} score The total or the successes (`9`, `2 successes`), or ''.
 * @property {string} words The outcome in words (`success`, `Hard success`), or what changed.
 * @property {string[]} details What was spent or drawn, the difficulty, the source.
 * @property {{filled: number, size: number} | null} segments A clock's segments.
 * @property {string} label What a screen reader says for the whole card.
 */

const CHECK = '🎲';
const CLOCK = '🕒';
const REFUSED = '⚠️';
const SHEET = '📋';
const SHEET_OPS = Object.freeze({
    damage: '❤️', restore: '💚', heal: '💚', spend: '💠', temp: '🛡️', track: '📊',
    condition: '🩹', state: '🎭', note: '📝', rest: '💤', use: '✨', cast: '✨', advance: '⭐',
});
const NOUN = Object.freeze({ skill_check: 'check', sheet: 'sheet', clock: 'clock' });
const TONES = Object.freeze({
    success: 'success', critical_success: 'critical-success', failure: 'failure',
    critical_failure: 'critical-failure', refused: 'refused', ok: 'ok',
});

/** Each refusal reason (SPEC §3) in words, as gmtags' own cards say it (`gmtags/tags/card.py`). */
const REASONS = Object.freeze({
    'malformed': 'the command could not be read',
    'too-many': 'too many commands in one reply',
    'internal-error': 'the engine could not apply it',
    'untrained': '{who} is not trained in {thing}',
    'unknown-character': 'no character named {who}',
    'ambiguous-character': 'more than one character is named {who}',
    'unknown-sheet': 'no shared sheet named {thing}',
    'unsupported-op': 'the shared sheet does not take {op}',
    'unknown-pool': '{who} has no pool {thing}',
    'ambiguous-pool': '{thing} names more than one pool',
    'bad-pool': '{thing} cannot pay for that',
    'insufficient': '{who} has not enough {thing}',
    'bad-amount': '{amount} is not an amount that can be used',
    'no-temp': '{thing} takes no temporary points',
    'unknown-track': '{who} has no track {thing}',
    'wrong-track': '{thing} cannot be set that way',
    'unknown-kind': '{thing} takes no harm of kind {kind}',
    'no-box': '{thing} has no box left for that',
    'unknown-condition': '{who} has no condition {thing}',
    'unknown-state': '{who} has no state {thing}',
    'unknown-value': '{thing} cannot be {value}',
    'unknown-field': '{who} has no field {thing}',
    'not-advanceable': '{thing} cannot be advanced',
    'invalid-value': '{thing} cannot take that value',
    'unknown-rest': '{who} has no rest {thing}',
    'unknown-entry': '{who} has nothing called {thing}',
    'ambiguous-entry': '{thing} names more than one thing',
    'no-clocks': 'this game has no clocks',
    'bad-name': '{thing} cannot name a clock',
    'bad-size': 'a clock cannot have {size} segments',
    'duplicate-clock': 'a clock named {thing} already runs',
    'clock-limit': 'no room for another clock',
    'unknown-clock': 'no clock named {thing}',
    'bad-tick': '{tick} is not a number of segments',
});
const THING = ['skill', 'save', 'pool', 'track', 'condition', 'state', 'field', 'rest', 'name', 'spell', 'sheet'];
const MISSING = Object.freeze({
    who: 'them', thing: 'it', op: 'that', amount: 'that', kind: 'that', value: 'that', size: 'that many', tick: 'that',
});

/**
 * A number read from an attribute, or NaN.
 * @param {string | undefined} value
 */
function number(value) {
    return value === undefined || value.trim() === '' ? NaN : Number(value);
}

/** @param {number} value */
function signed(value) {
    return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : '';
}

/** `critical_success` → `critical success`. @param {string} result */
function resultWords(result) {
    return result.replace(/_/g, ' ');
}

/**
 * Which thrown dice the result kept (gmtags/checks/record.py `kept`): one die
 * for dice-highest and a roll-against with several dice, the set that makes
 * `used` under advantage or disadvantage, else every die.
 * @param {number[]} rolls
 * @param {Record<string, string>} a
 * @returns {boolean[]}
 */
export function keptDice(rolls, a) {
    const used = number(a.used);
    const every = rolls.map(() => true);
    if (a.resolution === 'successes') {
        return every;
    }
    if (a.highest === '1' || a.highest === 'true' || (a.resolution === 'against' && rolls.length > 1)) {
        const index = rolls.indexOf(used);
        return index < 0 ? every : rolls.map((_, i) => i === index);
    }
    const half = Math.floor(rolls.length / 2);
    if ((a.mode === 'advantage' || a.mode === 'disadvantage') && half && rolls.length === 2 * half) {
        const sum = (/** @type {number[]} */ list) => list.reduce((x, y) => x + y, 0);
        if (sum(rolls.slice(0, half)) === used) {
            return rolls.map((_, i) => i < half);
        }
        if (sum(rolls.slice(half)) === used) {
            return rolls.map((_, i) => i >= half);
        }
    }
    return every;
}

/** Fudge dice (faces −1, 0, +1, written `4d3`; a real d3 never shows 0) are shown as −, 0, +. */
function isFudge(/** @type {number[]} */ rolls, /** @type {string} */ dice) {
    return rolls.some(face => face <= 0) && rolls.every(face => face >= -1 && face <= 1) && /d3\b|dF\b/i.test(dice);
}

/**
 * @param {Record<string, string>} a
 * @returns {Die[]}
 */
function diceOf(a) {
    const rolls = (a.rolls ?? '').split('|').map(s => s.trim()).filter(Boolean).map(Number);
    if (!rolls.length || rolls.some(Number.isNaN)) {
        return [];
    }
    const kept = keptDice(rolls, a);
    const fudge = isFudge(rolls, a.dice ?? '');
    const threshold = number(a.threshold);
    const dark = Math.max(0, Math.trunc(number(a.dark)) || 0);
    return rolls.map((face, i) => {
        /** @type {Die} */
        const die = { face: fudge ? (face > 0 ? '+' : face < 0 ? '−' : '0') : String(face), kept: kept[i] };
        if (a.resolution === 'successes' && !Number.isNaN(threshold)) {
            die.hit = face >= threshold;
        }
        if (dark && i >= rolls.length - dark) {
            die.dark = true;
        }
        return die;
    });
}

/** What was thrown and what it was read against: `2d6+4 vs 9`, `3d10 ≥7 vs 2`, `1d100 ≤60`. */
function rollWords(/** @type {Record<string, string>} */ a) {
    const dice = a.dice || 'no dice';
    const modifier = signed(number(a.modifier) || 0).replace('−', '-');
    if (a.resolution === 'against') {
        return `${dice}${modifier} ${a.against === 'at-least' ? '≥' : '≤'}${a.dc ?? '?'}`;
    }
    if (a.resolution === 'successes') {
        return `${dice} ≥${a.threshold ?? '?'} vs ${a.dc ?? '?'}`;
    }
    if (a.highest === '1' || a.highest === 'true') {
        return `${dice} ${a.zeroDice === 'true' ? 'lowest' : 'highest'} vs ${a.dc ?? '?'}`;
    }
    const mode = a.mode === 'advantage' || a.mode === 'disadvantage' ? ` with ${a.mode}` : '';
    return `${dice}${modifier}${mode} vs ${a.dc ?? '?'}`;
}

/** The total (`11`) or the successes (`2 successes`); '' for roll-against (the roll is the die). */
function scoreWords(/** @type {Record<string, string>} */ a) {
    if (a.resolution === 'successes') {
        const total = number(a.total);
        return `${a.total ?? '?'} ${total === 1 ? 'success' : 'successes'}`;
    }
    if (a.resolution === 'against') {
        return '';
    }
    return a.total ?? '';
}

/** @param {Record<string, string>} a @param {string} reason */
function reasonWords(a, reason) {
    const thing = THING.map(key => a[key]).find(value => value !== undefined);
    /** @type {Record<string, string | undefined>} */
    const values = { who: a.who, thing, op: a.op, amount: a.amount, kind: a.kind, value: a.value, size: a.size, tick: a.tick };
    const template = REASONS[/** @type {keyof typeof REASONS} */ (reason)];
    if (!template) {
        return reason.replace(/-/g, ' ');
    }
    return template.replace(/\{(\w+)\}/g, (_, key) => {
        const value = values[key];
        return value ? `"${value}"` : MISSING[/** @type {keyof typeof MISSING} */ (key)];
    });
}

/** @returns {Card} */
function blank(/** @type {Receipt} */ receipt) {
    const a = receipt.attributes;
    const result = a.result ?? '';
    return {
        command: receipt.command,
        result,
        outcome: a.outcome || result,
        tone: TONES[/** @type {keyof typeof TONES} */ (result)] ?? 'ok',
        icon: SHEET,
        title: '',
        who: a.who ?? '',
        roll: '',
        dice: [],
        score: '',
        words: '',
        details: [],
        segments: null,
        label: '',
    };
}

/** @param {Receipt} receipt @returns {Card} */
function refusedCard(receipt) {
    const card = blank(receipt);
    const a = receipt.attributes;
    const noun = NOUN[/** @type {keyof typeof NOUN} */ (receipt.command)] ?? receipt.command;
    const about = receipt.command === 'skill_check' ? (a.skill ?? a.save ?? '') : (a.name ?? a.pool ?? a.track ?? a.condition ?? a.state ?? a.field ?? '');
    card.icon = REFUSED;
    card.title = about ? `${about} ${noun}` : noun;
    card.words = `refused: ${reasonWords(a, a.reason ?? 'refused')}`;
    card.label = [card.title, card.who, card.words].filter(Boolean).join(', ');
    return card;
}

/** @param {Receipt} receipt @returns {Card} */
function checkCard(receipt) {
    const card = blank(receipt);
    const a = receipt.attributes;
    card.icon = CHECK;
    card.title = a.save ? `${a.save} save` : `${a.skill ?? 'Skill'} check`;
    card.roll = rollWords(a);
    card.dice = diceOf(a);
    card.score = scoreWords(a);
    const tier = resultWords(card.result);
    card.words = a.outcome && a.outcome.toLowerCase() !== tier ? `${a.outcome} (${tier})` : (a.outcome || tier);
    if (a.resolution === 'sum' && a.symbols !== undefined) {
        card.details.push(`symbols ${a.symbols || 'none'}`);
    }
    for (const [key, word] of [['spend', 'spent'], ['use', 'used'], ['with', 'with'], ['bonus', 'bonus'], ['penalty', 'penalty'], ['difficulty', 'difficulty'], ['effects', 'effects'], ['from', 'from']]) {
        if (a[key]) {
            card.details.push(`${word} ${a[key]}`);
        }
    }
    if (a.complication === 'true') {
        card.details.push('complication');
    }
    const against = a.resolution === 'against'
        ? `rolled ${a.total ?? '?'} needing ${a.against === 'at-least' ? 'at least' : 'at most'} ${a.dc ?? '?'}`
        : a.resolution === 'successes'
            ? `${card.score} of ${a.dc ?? '?'} needed`
            : `${a.total ?? '?'} against ${a.dc ?? '?'}`;
    card.label = [card.title, card.who, against, card.words].filter(Boolean).join(', ');
    return card;
}

/** @param {Receipt} receipt @returns {Card} */
function clockCard(receipt) {
    const card = blank(receipt);
    const a = receipt.attributes;
    card.icon = CLOCK;
    card.title = a.name ?? 'Clock';
    card.who = '';
    const now = a.now ?? '';
    const match = /^(-?\d+)\s*\/\s*(\d+)$/.exec(now);
    if (now === 'cleared') {
        card.words = 'cleared';
    } else if (match) {
        const filled = Number(match[1]);
        const size = Number(match[2]);
        card.segments = { filled, size };
        const change = a.size !== undefined ? 'new clock, ' : (a.tick ? `${signed(number(a.tick)) || a.tick}, ` : '');
        card.words = `${change}${filled} of ${size}${filled >= size ? ', full' : ''}`;
    } else {
        card.words = now;
    }
    card.label = [`${card.title} clock`, card.words].join(', ');
    return card;
}

/** @param {Receipt} receipt @returns {Card} */
function sheetCard(receipt) {
    const card = blank(receipt);
    const a = receipt.attributes;
    const op = a.op ?? '';
    card.icon = SHEET_OPS[/** @type {keyof typeof SHEET_OPS} */ (op)] ?? SHEET;
    card.who = a.who ?? a.sheet ?? '';
    const thing = a.pool ?? a.track ?? a.condition ?? a.state ?? a.field ?? a.rest ?? a.spell ?? a.name ?? '';
    card.title = thing || op || 'sheet';
    const now = a.now ?? '';
    if (a.pool !== undefined && a.amount !== undefined && ['spend', 'restore', 'heal', 'damage', 'temp'].includes(op)) {
        const sign = ['restore', 'heal', 'temp'].includes(op) ? '+' : '−';
        const amount = a.amount.replace(/^[+-]/, '');
        card.words = `${sign}${amount}${op === 'temp' ? ' temp' : ''} → ${now}`;
        if (op === 'spend') {
            card.details.push(`spent ${amount} ${a.pool}`);
        }
    } else {
        card.words = now || op;
    }
    const spoken = card.words.replace('→', 'now').replace('−', 'minus ');
    card.label = [card.who, card.title, spoken].filter(Boolean).join(', ');
    return card;
}

const BUILDERS = Object.freeze({ skill_check: checkCard, clock: clockCard, sheet: sheetCard });

/**
 * The card of one receipt.
 * @param {Receipt} receipt
 * @returns {Card}
 */
export function cardOf(receipt) {
    if (receipt.attributes.result === 'refused') {
        return refusedCard(receipt);
    }
    const build = BUILDERS[/** @type {keyof typeof BUILDERS} */ (receipt.command)];
    return build ? build(receipt) : refusedCard(receipt);
}
