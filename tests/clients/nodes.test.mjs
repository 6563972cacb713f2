// lib/nodes.js and lib/textmap.js: which node a message shows, and where receipts lie in a rendered message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { nodeForMessage, panelPin, START } from '../../clients/sillytavern/lib/nodes.js';
import { receiptKeys } from '../../clients/sillytavern/lib/receipts.js';
import { locateReceipts, messageInView } from '../../clients/sillytavern/lib/textmap.js';
import { caseText } from './fixtures.mjs';

const created = caseText('clock-clocks', 'A clock is created and ticked');
const ticked = caseText('clock-clocks', 'Ticks add segments');
const cleared = caseText('clock-clocks', 'Clear removes the named clock');

/** A node as `GET /gmtags/api/chats/{chat}` lists it. */
const node = (id, parent, text, kind = 'reply', current = false) => ({ id, parent, kind, receipts: receiptKeys(text), created: '', current });
const ai = mes => ({ mes, is_user: false });
const user = mes => ({ mes, is_user: true });

describe('nodeForMessage', () => {
    const nodes = [node('n1', null, created), node('n2', 'n1', ticked), node('n3', 'n1', cleared, 'reply', true)];

    it('finds the node whose receipts a message holds', () => {
        const chat = [ai('Hello.'), user('go'), ai(created), user('more'), ai(ticked)];
        assert.equal(nodeForMessage(chat, 2, nodes), 'n1');
        assert.equal(nodeForMessage(chat, 4, nodes), 'n2');
    });

    it('compares receipts with whitespace runs collapsed, whatever the prose around them', () => {
        const edited = `Rewritten prose.\n${created.replace(/ tick=/, '   tick=')}`;
        assert.equal(nodeForMessage([ai(edited)], 0, nodes), 'n1');
    });

    it('gives a message without receipts the node of the last message before it with some', () => {
        const chat = [ai(created), user('go'), ai('Nothing happens.')];
        assert.equal(nodeForMessage(chat, 2, nodes), 'n1');
    });

    it('gives the start when no message so far has receipts', () => {
        assert.equal(nodeForMessage([ai('Hello.'), user('hi')], 1, nodes), START);
    });

    it('gives null for receipts no node holds', () => {
        assert.equal(nodeForMessage([ai('[clock: name="Zzz" tick="1" result="ok" now="1/4"]')], 0, nodes), null);
    });

    it('matches a continued message to the last piece of its chain', () => {
        const chained = [node('r', null, created), node('c', 'r', ticked, 'continuation')];
        assert.equal(nodeForMessage([ai(`${created} ${ticked}`)], 0, chained), 'c');
        assert.equal(nodeForMessage([ai(ticked)], 0, chained), 'c');
    });

    it('prefers the node whose past matches the earlier messages (a swipe of an earlier message)', () => {
        const same = '[clock: name="Omen" tick="1" result="ok" now="1/4"]';
        const branches = [node('a', null, created), node('b', null, cleared), node('a2', 'a', same), node('b2', 'b', same)];
        assert.equal(nodeForMessage([ai(created), user('x'), ai(same)], 2, branches), 'a2');
        assert.equal(nodeForMessage([ai(cleared), user('x'), ai(same)], 2, branches), 'b2');
    });

    it('prefers the current node, then the newest, among equals', () => {
        const same = '[clock: name="Omen" tick="1" result="ok" now="1/4"]';
        assert.equal(nodeForMessage([ai(same)], 0, [node('x', null, same), node('y', null, same)]), 'y');
        assert.equal(nodeForMessage([ai(same)], 0, [node('x', null, same, 'reply', true), node('y', null, same)]), 'x');
    });
});

describe('panelPin', () => {
    const nodes = [node('n1', null, created), node('n2', 'n1', ticked, 'reply', true)];
    const chat = [ai(created), user('go'), ai(ticked)];

    it('pins an earlier reply the player looks at', () => {
        assert.deepEqual(panelPin(chat, 0, nodes), { node: 'n1', known: true });
    });

    it('follows the chat live at the current reply (saves made since are in the live state)', () => {
        assert.deepEqual(panelPin(chat, 2, nodes), { node: null, known: true });
    });

    it('follows live, and says so, for a message gmtags never made', () => {
        const edited = [ai('[clock: name="Zzz" tick="1" result="ok" now="1/4"]')];
        assert.deepEqual(panelPin(edited, 0, nodes), { node: null, known: false });
    });

    it('follows live when no message is looked at', () => {
        assert.deepEqual(panelPin(chat, null, nodes), { node: null, known: true });
    });
});

describe('locateReceipts', () => {
    it("finds a receipt split across SillyTavern's <q> elements", () => {
        // `[clock: name=<q>"Alarm raised"</q> tick=<q>"2"</q> result=<q>"ok"</q> now=<q>"2/6"</q>]`
        const pieces = ['A bell. [clock: name=', '"Alarm raised"', ' tick=', '"2"', ' result=', '"ok"', ' now=', '"2/6"', '] Run.'];
        const [found] = locateReceipts(pieces);
        assert.equal(found.receipt.attributes.name, 'Alarm raised');
        assert.deepEqual(found.start, { piece: 0, offset: 8 });
        assert.deepEqual(found.end, { piece: 8, offset: 1 });
    });

    it('ends a receipt inside the piece that holds its last character', () => {
        const [found] = locateReceipts(['[clock: name="A" result="ok" now="1/4"]', 'after']);
        assert.deepEqual(found.end, { piece: 0, offset: 39 });
    });

    it('never reads a receipt across a break', () => {
        assert.deepEqual(locateReceipts(['[clock: name="A"', null, ' result="ok" now="1/4"]']), []);
    });

    it('finds nothing in text that is only cards and prose', () => {
        assert.deepEqual(locateReceipts(['Alarm raised', ' 2 of 6']), []);
    });
});

describe('messageInView', () => {
    const messages = [{ id: 0, top: -500 }, { id: 1, top: -100 }, { id: 2, top: 300 }, { id: 3, top: 900 }];

    it('takes the last message whose top is in view', () => {
        assert.equal(messageInView(messages, 0, 800), 2);
    });

    it('takes the message filling the view when no top is in it', () => {
        assert.equal(messageInView(messages, 0, 250), 1);
    });

    it('falls back to the newest, and to none for an empty chat', () => {
        assert.equal(messageInView([{ id: 5, top: 2000 }], 0, 800), 5);
        assert.equal(messageInView([], 0, 800), null);
    });
});
