/* The balls called aloud on the player's game screen (R42, R77), and the sound switch.
 *
 * ``window.bingoSpeech.say(text)`` calls one ball: the words come from the server's state
 * (``calls``, written by bingo/engine/calls.py in European Portuguese: "quarenta e dois",
 * "B, doze"). Said by the browser's own speech synthesis with a Portuguese voice — pt-PT where
 * the device has one, else any Portuguese voice — and, where the device has none (or no speech
 * synthesis), a short chime through the Web Audio API instead. Nothing is asked of the server.
 *
 * The sound is off until the player turns it on with the switch (``[data-sound]``), and the
 * choice is remembered in this browser (localStorage ``bingo-sound``); browsers block sound until
 * a gesture anyway, and turning it on is that gesture. Calls go through one queue: ``queue`` holds
 * those waiting, ``spoken`` every call handed to the device ({text, lang, voice, via: "voice" |
 * "chime"}), which the browser tests read (headless Chromium has no voices to hear). A call
 * waiting behind too many others is dropped: a ball called late is worse than one the board shows.
 * No framework, no inline script (CSP).
 */
(function () {
  "use strict";

  var KEY = "bingo-sound";
  var MOST_WAITING = 2;
  var synth = window.speechSynthesis || null;
  var audio = null;
  var speaking = false;
  var watchdog = null;

  var speech = {
    lang: "pt-PT",
    queue: [],
    spoken: [],
    enabled: enabled,
    setEnabled: setEnabled,
    say: say
  };

  function enabled() {
    try {
      return window.localStorage.getItem(KEY) === "on";
    } catch (err) {
      return speech.on === true; /* private mode: as long as the page */
    }
  }

  function setEnabled(on) {
    speech.on = !!on;
    try {
      window.localStorage.setItem(KEY, on ? "on" : "off");
    } catch (err) {
      /* private mode: remembered as long as the page */
    }
    if (on) {
      unlock();
    } else {
      speech.queue.length = 0;
      if (synth) {
        synth.cancel();
      }
      speaking = false;
    }
  }

  // A Portuguese voice: Portugal's first, else any Portuguese one; null where there is none.
  function voice() {
    if (!synth || typeof window.SpeechSynthesisUtterance !== "function") {
      return null;
    }
    var voices = synth.getVoices() || [];
    var lang = function (v) {
      return String(v.lang || "").replace("_", "-").toLowerCase();
    };
    return voices.filter(function (v) { return lang(v) === "pt-pt"; })[0] ||
      voices.filter(function (v) { return lang(v).indexOf("pt") === 0; })[0] || null;
  }

  // Inside the switch's click (a gesture): the browser lets this page play sound from now on.
  function unlock() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) {
      try {
        audio = new Context();
      } catch (err) {
        audio = null;
      }
    }
    if (audio && audio.state === "suspended") {
      audio.resume();
    }
    if (synth) {
      synth.getVoices(); /* some browsers load their voices on the first ask */
    }
  }

  function chime() {
    if (!audio) {
      return false;
    }
    var now = audio.currentTime;
    [880, 1320].forEach(function (pitch, i) {
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = pitch;
      gain.gain.setValueAtTime(0.0001, now + i * 0.15);
      gain.gain.exponentialRampToValueAtTime(0.3, now + i * 0.15 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.15 + 0.3);
      tone.connect(gain);
      gain.connect(audio.destination);
      tone.start(now + i * 0.15);
      tone.stop(now + i * 0.15 + 0.32);
    });
    return true;
  }

  function done() {
    window.clearTimeout(watchdog);
    speaking = false;
    next();
  }

  function next() {
    if (speaking || !speech.queue.length) {
      return;
    }
    var text = speech.queue.shift();
    var found = voice();
    if (!found) {
      speech.spoken.push({ text: text, lang: speech.lang, voice: null, via: chime() ? "chime" : "none" });
      next();
      return;
    }
    var utterance = new window.SpeechSynthesisUtterance(text);
    utterance.lang = found.lang;
    utterance.voice = found;
    utterance.onend = done;
    utterance.onerror = done;
    speaking = true;
    // A device that never says it finished must not silence the calls after it.
    watchdog = window.setTimeout(done, 4000);
    speech.spoken.push({ text: text, lang: found.lang, voice: found.name, via: "voice" });
    synth.speak(utterance);
  }

  function say(text) {
    if (!text || !enabled()) {
      return;
    }
    speech.queue.push(String(text));
    while (speech.queue.length > MOST_WAITING) {
      speech.queue.shift();
    }
    next();
  }

  // The switch: its label says what a press does; hidden where the script does not run.
  function bind(button) {
    var show = function () {
      var on = enabled();
      button.textContent = button.getAttribute(on ? "data-label-on" : "data-label-off");
      button.classList.toggle("is-on", on);
    };
    button.addEventListener("click", function () {
      setEnabled(!enabled());
      show();
    });
    button.hidden = false;
    show();
  }

  window.bingoSpeech = speech;
  Array.prototype.forEach.call(document.querySelectorAll("[data-sound]"), bind);
  // Sound left on from an earlier visit: the page's first tap or key lets it play again.
  var wake = function () {
    if (enabled()) {
      unlock();
    }
    document.removeEventListener("pointerdown", wake, true);
    document.removeEventListener("keydown", wake, true);
  };
  document.addEventListener("pointerdown", wake, true);
  document.addEventListener("keydown", wake, true);
})();
