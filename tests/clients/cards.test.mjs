// lib/cards.js: a receipt the engine wrote, shown as a card a player reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { cardOf } from '../../clients/sillytavern/lib/cards.js';
import { allReceipts, receiptsOf } from './fixtures.mjs';

/** The dice as `5`, `~3` (not kept), `7*` (a success). */
const faces = card => card.dice.map(d => `${d.kept ? '' : '~'}${d.face}${d.hit ? '*' : ''}${d.dark ? 'd' : ''}`).join(' ');

describe('check cards, dice-sum', () => {
    it('shows what was checked, who, the dice, the total against the target and the outcome', () => {
        const [receipt] = receiptsOf('skill_check-dice_sum', 'A 2d6 check adds');
        const card = cardOf(receipt);
        assert.equal(card.command, 'skill_check');
        assert.equal(card.result, 'success');
        assert.equal(card.outcome, 'success');
        assert.equal(card.tone, 'success');
        assert.equal(card.title, 'Climb check');
        assert.equal(card.who, 'Bram the Quiet');
        assert.equal(card.roll, '2d6+4 vs 10');
        assert.equal(faces(card), '2 5');
        assert.equal(card.score, '11');
        assert.equal(card.words, 'success');
        assert.deepEqual(card.details, ['difficulty Hard']);
        assert.equal(card.label, 'Climb check, Bram the Quiet, 11 against 10, success');
    });

    it('marks the set advantage dropped and the one disadvantage dropped', () => {
        const [advantage, disadvantage] = receiptsOf('skill_check-dice_sum', 'Advantage throws two sets').map(cardOf);
        assert.equal(faces(advantage), '~15 18');
        assert.equal(advantage.roll, '2d20+5 with advantage vs 15');
        assert.equal(faces(disadvantage), '15 ~15');
        assert.equal(disadvantage.title, 'Reflex save'); // save= keeps its name key (issue 28)
    });

    it('shows Fudge dice as signs and the ladder tier with the result', () => {
        const [notice, fight] = receiptsOf('skill_check-dice_sum', 'Fate: four Fudge dice').map(cardOf);
        assert.equal(faces(notice), '0 − 0 +');
        assert.equal(notice.outcome, 'Success');
        assert.equal(fight.words, 'Fail (failure)');
        assert.equal(fight.tone, 'failure');
        assert.equal(fight.outcome, 'Fail');
    });
});

describe('check cards, other resolutions', () => {
    it('a dice pool counts successes and marks the dice that hit', () => {
        const [receipt] = receiptsOf('skill_check-dice_pool', 'Nerve 3 and a rating of 1');
        const card = cardOf(receipt);
        assert.equal(card.roll, '4d10 ≥7 vs 2');
        assert.equal(faces(card), '4 5 2 7*');
        assert.equal(card.score, '1 success');
        assert.equal(card.label, 'Ward check, Bram the Quiet, 1 success of 2 needed, failure');
    });

    it('a pool check says what it spent', () => {
        const [receipt] = receiptsOf('skill_check-dice_pool', 'A point of Resolve buys');
        assert.ok(cardOf(receipt).details.includes('spent resolve:1'));
    });

    it('a critical success is its own tone', () => {
        const [receipt] = receiptsOf('skill_check-dice_pool', 'Lasers counts dice');
        const card = cardOf(receipt);
        assert.equal(card.tone, 'critical-success');
        assert.equal(card.outcome, 'Critical success');
    });

    it('dice-highest keeps one die and marks dark dice', () => {
        const [hunt, skirmish] = receiptsOf('skill_check-dice_highest', 'Blades').map(cardOf);
        assert.equal(faces(hunt), '~2 3 ~1');
        assert.equal(hunt.roll, '3d6 highest vs 4');
        assert.equal(hunt.words, 'Bad outcome (failure)');
        assert.deepEqual(hunt.details, ['bonus +1']);
        assert.equal(faces(skirmish), '~6 4');
        assert.equal(skirmish.roll, '2d6 lowest vs 4');
        const [dark] = receiptsOf('skill_check-dice_highest', 'Trophy').map(cardOf);
        assert.equal(faces(dark), '1 ~1 ~1d');
    });

    it('roll-against shows the roll against the number it must stay under', () => {
        const [hard, failed] = receiptsOf('skill_check-roll_against', 'Call of Cthulhu').map(cardOf);
        assert.equal(hard.roll, '1d100 ≤60');
        assert.equal(faces(hard), '21 ~21');
        assert.equal(hard.score, '');
        assert.equal(hard.label, 'Spot Hidden check, Ada, rolled 21 needing at most 60, Hard success (success)');
        assert.equal(failed.outcome, 'Failure');
    });

    it('a symbol pool shows its symbols', () => {
        const cards = receiptsOf('skill_check-symbol_pool', 'upgrade= turns').map(cardOf);
        assert.equal(cards[0].tone, 'critical-success');
        assert.ok(cards[0].details.includes('symbols 3s 2h 1t'));
    });

    it('a refused check says why', () => {
        const [refused, rolled] = receiptsOf('skill_check-dice_sum', 'An untrained refuse check').map(cardOf);
        assert.equal(refused.tone, 'refused');
        assert.equal(refused.outcome, 'refused');
        assert.equal(refused.words, 'refused: "Kai" is not trained in "Old Lore"');
        assert.equal(refused.dice.length, 0);
        assert.equal(rolled.tone, 'success');
    });
});

describe('clock cards', () => {
    it('shows a new clock and a tick as segments', () => {
        const [created, ticked] = receiptsOf('clock-clocks', 'A clock is created and ticked').map(cardOf);
        assert.deepEqual(created.segments, { filled: 0, size: 6 });
        assert.equal(created.words, 'new clock, 0 of 6');
        assert.deepEqual(ticked.segments, { filled: 2, size: 6 });
        assert.equal(ticked.words, '+2, 2 of 6');
        assert.equal(ticked.label, 'Alarm raised clock, +2, 2 of 6');
        assert.equal(ticked.outcome, 'ok');
    });

    it('says when a clock is full or cleared', () => {
        const [full] = receiptsOf('clock-clocks', 'Ticks add segments').map(cardOf);
        assert.equal(full.words, '+5, 6 of 6, full');
        const [cleared, refused] = receiptsOf('clock-clocks', 'Clear removes the named clock').map(cardOf);
        assert.equal(cleared.words, 'cleared');
        assert.equal(cleared.segments, null);
        assert.equal(refused.words, 'refused: no clock named "Alarm raised"');
    });
});

describe('sheet cards', () => {
    it('shows what a pool op changed and what was spent', () => {
        const [damage, temp] = receiptsOf('sheet-pools', '').map(cardOf);
        assert.equal(damage.who, 'Ada');
        assert.equal(damage.title, 'hp');
        assert.equal(damage.words, '−9 → 29/38');
        assert.equal(temp.words, '+5 temp → 29/38 +5 temp');
        const spend = cardOf({ command: 'sheet', text: '', start: 0, end: 0, attributes: { who: 'Bram', op: 'spend', pool: 'Lamp oil', amount: '1', result: 'ok', now: '3/4' } });
        assert.equal(spend.words, '−1 → 3/4');
        assert.deepEqual(spend.details, ['spent 1 Lamp oil']);
        assert.equal(spend.label, 'Bram, Lamp oil, minus 1 now 3/4');
    });

    it('shows a wound track as its new value and a refusal as its reason', () => {
        const cards = allReceipts('sheet-wounds').map(cardOf);
        assert.equal(cards[0].words, 'Harm 1/4 Scuffed');
        const refused = cards.find(card => card.result === 'refused');
        assert.ok(refused.words.startsWith('refused: '));
        assert.equal(refused.tone, 'refused');
    });
});
