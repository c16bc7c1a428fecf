/// The stylesheet and the script, embedded in the binary (no build step, no files to install).
public enum Assets {
    /// Phones first (one column, 48 px touch targets), light and dark from the system's choice.
    public static let css = """
        :root{color-scheme:light dark;--bg:#fafafa;--fg:#1b1b1b;--muted:#666;--card:#fff;--accent:#0a64c8;\
        --line:#ddd}
        @media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#eee;--muted:#aaa;--card:#1e1e1e;\
        --accent:#6cb2ff;--line:#333}}
        *{box-sizing:border-box}
        body{margin:0;font:16px/1.4 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
        nav{display:flex;flex-wrap:wrap;gap:.25rem;padding:.5rem;border-bottom:1px solid var(--line);position:sticky;top:0;\
        background:var(--bg)}
        nav a{flex:1 0 auto;text-align:center;padding:.8rem .5rem;border-radius:.5rem;color:var(--fg);text-decoration:none}
        nav a[aria-current]{background:var(--card);font-weight:600}
        main{max-width:40rem;margin:auto;padding:1rem}
        #cover{display:block;width:100%;max-width:20rem;aspect-ratio:1;object-fit:cover;margin:auto;\
        border-radius:.75rem;background:var(--card)}
        h1{font-size:1.5rem;margin:.75rem 0 .25rem;overflow-wrap:anywhere}
        #artist,.lyric,small{color:var(--muted);overflow-wrap:anywhere}
        .lyric{min-height:1.4em;font-style:italic}
        .progress{display:flex;align-items:center;gap:.5rem}.progress input{flex:1}
        input[type=range]{min-height:48px;accent-color:var(--accent)}
        .controls{display:flex;justify-content:center;gap:1rem;margin:.5rem 0}
        button,select{min-height:48px;min-width:48px;font-size:1.1rem;border-radius:.5rem;\
        border:1px solid var(--line);background:var(--card);color:var(--fg)}
        .controls button{font-size:1.6rem;width:4rem}
        .volume{display:flex;align-items:center;gap:.5rem}.volume input{flex:1}
        ol,ul{list-style:none;padding:0}
        li{display:flex;gap:.5rem;align-items:center;border-bottom:1px solid var(--line);padding:.25rem 0}
        li.current .entry{border-color:var(--accent);font-weight:600}
        .grow{flex:1;min-width:0}
        .entry{width:100%;text-align:left;display:flex;flex-direction:column;padding:.4rem .6rem}
        .entry span,.plays{overflow-wrap:anywhere}
        #card-list li{align-items:flex-start;padding:.75rem 0}
        #card-list .grow>*{display:block}
        #unknown{background:var(--card);border:2px solid var(--accent);border-radius:.75rem;padding:0 1rem 1rem}
        .assign label{display:block;margin:.5rem 0}.assign select{width:100%;max-width:100%}
        .assign-button{width:100%;background:var(--accent);color:#fff;border:0}
        .rename label{display:block;margin:.5rem 0}.rename input{width:100%;min-height:48px;font-size:1rem;\
        padding:.4rem;border-radius:.5rem;border:1px solid var(--line);background:var(--card);color:var(--fg)}
        .rename-button{width:100%;margin-bottom:.5rem}#card-list .name em{color:var(--muted)}
        .check input{width:1.5rem;height:1.5rem;vertical-align:middle}
        .message{padding:.75rem;border-radius:.5rem;background:var(--card);border:1px solid var(--accent)}
        :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
        details{border-bottom:1px solid var(--line)}summary{padding:.9rem 0;font-weight:600;cursor:pointer}
        .field{margin:.5rem 0 1rem}.field label{display:block;font-weight:600}
        .field input,.field select,.field textarea,#login input,#setup input{width:100%;min-height:48px;\
        font-size:1rem;padding:.4rem;border-radius:.5rem;border:1px solid var(--line);background:var(--card);\
        color:var(--fg)}
        .field small{display:block}.refused input,.refused select{border:2px solid #c62828}
        .problem{display:block;color:#c62828;font-weight:600}
        #login label,#setup label{display:block;margin:.75rem 0}
        form.settings>button,#login button,#setup button{width:100%;margin:1rem 0;background:var(--accent);\
        color:#fff;border:0}
        .quiet{width:100%}
        #upload label{display:block;margin:.75rem 0}#upload input{width:100%;min-height:48px}
        #drop{border:2px dashed var(--line);border-radius:.75rem;padding:2rem 1rem;text-align:center;\
        color:var(--muted)}
        #upload button{width:100%;margin:1rem 0;background:var(--accent);color:#fff;border:0}
        #upload-list li{display:grid;grid-template-columns:1fr 6rem;gap:.25rem}
        #upload-list small{grid-column:1/3}#upload-list li[data-result=refused] small{color:#c62828}
        #facts dt{font-weight:600}#facts dd{margin:0 0 .75rem;overflow-wrap:anywhere}
        #restart-form button{width:100%;margin:1rem 0}
        #restarting[data-state=running] #restart-status{font-weight:600}
        #restarting[data-state=failed] #restart-status{color:#c62828;font-weight:600}
        #restart-log{white-space:pre-wrap;overflow-wrap:anywhere}
        .search{display:flex;flex-wrap:wrap;gap:.5rem}.search input{flex:1 1 12rem;min-height:48px;font-size:1rem;\
        padding:.4rem;border-radius:.5rem;border:1px solid var(--line);background:var(--card);color:var(--fg)}
        #music li>.grow{display:flex;flex-direction:column;overflow-wrap:anywhere}
        #music li a.grow{min-height:48px;justify-content:center;color:var(--fg);text-decoration:none}
        #music li button{font-size:.95rem;padding:0 .5rem}
        .folder-actions{display:flex;gap:.5rem}.wide{width:100%}
        #music-now a{color:var(--fg)}.pager{text-align:center}.pager a{display:inline-block;padding:.8rem}
        """

    /// Posts forms with fetch, follows `/events`, and keeps the page current with `textContent`
    /// (names never reach the HTML parser).
    public static let javascript = """
        'use strict';
        const token = document.querySelector('meta[name=csrf]').content;
        const $ = (id) => document.getElementById(id);
        function post(action, fields) {
          const body = new URLSearchParams(fields);
          body.set('csrf', token);
          return fetch(action, {method: 'POST', body, headers: {'X-Jukebox': 'fetch'}});
        }
        document.addEventListener('submit', (event) => {
          const form = event.target;
          if (!form.hasAttribute('data-fetch')) return;
          event.preventDefault();
          post(form.action, new FormData(form));
        });
        function clock(s) {
          s = Math.max(0, Math.floor(s || 0));
          const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = String(s % 60).padStart(2, '0');
          return h ? h + ':' + String(m).padStart(2, '0') + ':' + r : m + ':' + r;
        }
        let now = null, since = 0, dragging = false;
        function elapsed() {
          return now.state === 'play' ? now.elapsed + (performance.now() - since) / 1000 : now.elapsed;
        }
        function tick() {
          if (!now || dragging || !$('seek')) return;
          const at = Math.min(elapsed(), now.duration || elapsed());
          $('elapsed').textContent = clock(at);
          $('seek').value = Math.floor(at);
        }
        function entry(item, current) {
          const li = document.createElement('li');
          li.dataset.id = item.id;
          if (current) li.className = 'current';
          const play = document.createElement('button');
          play.className = 'entry grow';
          const title = document.createElement('span');
          title.textContent = item.title;
          play.append(title);
          if (item.artist) { const a = document.createElement('small'); a.textContent = item.artist; play.append(a); }
          play.addEventListener('click', () => post('/action', {op: 'playid', value: item.id}));
          const remove = document.createElement('button');
          remove.textContent = '✕';
          remove.setAttribute('aria-label', 'Remove');
          remove.dataset.op = 'remove';
          remove.addEventListener('click', () => post('/action', {op: 'remove', value: item.id}));
          li.append(play, remove);
          return li;
        }
        function render(state) {
          now = state; since = performance.now();
          if (!$('now')) return;
          $('now').dataset.state = state.state;
          $('title').textContent = state.title || 'Nothing playing';
          $('artist').textContent = state.artist;
          $('lyric').textContent = state.lyric;
          $('duration').textContent = clock(state.duration);
          $('seek').max = Math.floor(state.duration);
          const cover = $('cover');
          if (state.cover && cover.getAttribute('src') !== state.cover) cover.src = state.cover;
          cover.hidden = !state.cover;
          if (state.volume !== null && document.activeElement !== $('volume')) $('volume').value = state.volume;
          const toggle = document.querySelector('[data-op=play],[data-op=pause]');
          const op = state.state === 'play' ? 'pause' : 'play';
          toggle.dataset.op = op;
          toggle.form.elements.op.value = op;
          $('queue').replaceChildren(...state.queue.map((item) => entry(item, item.id === state.songid)));
          $('queue').start = state.queue_from + 1;
          const after = state.queue_length - state.queue_from - state.queue.length;
          $('queue-elsewhere').textContent = [state.queue_from > 0 ? state.queue_from + ' before' : '',
            after > 0 ? after + ' more' : ''].filter(Boolean).join(' · ');
          tick();
        }
        async function reloadCards() {
          const open = [...document.querySelectorAll('details[open]')].map((d) => d.closest('li').dataset.card);
          const chosen = document.querySelector('#unknown select')?.value;
          const page = new DOMParser().parseFromString(await (await fetch('/cards')).text(), 'text/html');
          $('cards').replaceWith(page.getElementById('cards'));
          for (const li of document.querySelectorAll('#card-list li'))
            if (open.includes(li.dataset.card)) li.querySelector('details').open = true;
          const select = document.querySelector('#unknown select');
          if (select && chosen) select.value = chosen;
        }
        document.addEventListener('change', (event) => {
          const target = event.target;
          if (target.id === 'seek') { dragging = false; post('/action', {op: 'seek', value: target.value}); }
          else if (target.id === 'volume') post('/action', {op: 'volume', value: target.value});
          else if (target.classList.contains('only-free'))
            for (const option of target.form.querySelectorAll('option[value]:not([value=""])'))
              option.hidden = target.checked && !option.hasAttribute('data-free');
        });
        document.addEventListener('input', (event) => {
          if (event.target.id === 'seek') { dragging = true; $('elapsed').textContent = clock(event.target.value); }
        });
        const events = new EventSource('/events');
        events.addEventListener('state', (event) => render(JSON.parse(event.data)));
        events.addEventListener('lyric', (event) => {
          if ($('lyric')) $('lyric').textContent = JSON.parse(event.data).lyric;
        });
        events.addEventListener('cards', () => { if ($('cards')) reloadCards(); });
        setInterval(tick, 500);
        // The upload page: each file streamed on its own request with its progress, one at a
        // time; then one scan of the folder.
        const uploadForm = $('upload-form');
        if (uploadForm) {
          const dropped = [];
          const walk = (entry, path) => new Promise((done) => {
            if (entry.isFile) {
              entry.file((file) => { dropped.push({file, path: path + file.name}); done(); }, () => done());
            } else if (entry.isDirectory) {
              const reader = entry.createReader();
              const more = () => reader.readEntries(async (entries) => {
                if (!entries.length) { done(); return; }
                for (const child of entries) await walk(child, path + entry.name + '/');
                more();
              }, () => done());
              more();
            } else done();
          });
          const drop = $('drop');
          drop.addEventListener('dragover', (event) => event.preventDefault());
          drop.addEventListener('drop', async (event) => {
            event.preventDefault();
            const entries = [...event.dataTransfer.items].map((item) => item.webkitGetAsEntry()).filter(Boolean);
            for (const entry of entries) await walk(entry, '');
            drop.textContent = dropped.length + ' files dropped';
          });
          const send = (item, row) => new Promise((done) => {
            const request = new XMLHttpRequest();
            request.open('POST', '/upload/file?path=' + encodeURIComponent(item.path));
            request.setRequestHeader('X-CSRF-Token', token);
            const bar = row.querySelector('progress');
            request.upload.onprogress = (event) => { if (event.lengthComputable) bar.value = event.loaded / event.total; };
            request.onload = () => {
              const ok = request.status === 201;
              if (ok) bar.value = 1;
              row.dataset.result = ok ? 'done' : 'refused';
              row.querySelector('small').textContent = ok ? 'done' : request.responseText.trim();
              done(ok);
            };
            request.onerror = () => { row.dataset.result = 'refused'; row.querySelector('small').textContent = 'connection lost'; done(false); };
            request.send(item.file);
          });
          uploadForm.addEventListener('submit', async (event) => {
            event.preventDefault();
            const folder = $('upload-folder').value.split('/').filter(Boolean).join('/');
            const items = dropped.slice();
            for (const file of [...$('upload-files').files, ...$('upload-tree').files]) {
              items.push({file, path: file.webkitRelativePath || file.name});
            }
            const list = $('upload-list');
            list.textContent = '';
            let good = 0;
            for (const item of items) {
              item.path = folder + '/' + item.path;
              const row = document.createElement('li');
              const name = document.createElement('span');
              name.textContent = item.path;
              const bar = document.createElement('progress');
              bar.max = 1; bar.value = 0;
              row.append(name, bar, document.createElement('small'));
              list.append(row);
              if (await send(item, row)) good += 1;
            }
            dropped.length = 0;
            if (good) await post('/upload/scan', {folder});
            $('upload-status').textContent = good + ' of ' + items.length + ' files uploaded' + (good ? '; the box is adding them.' : '.');
          });
        }
        // After Restart: ask /system/daemon until the daemon answers from a new start, then
        // say so; after 90 s say it did not come back, with what the config check finds.
        const restarting = $('restarting');
        if (restarting) {
          const since = restarting.dataset.since, began = performance.now();
          let seenDown = false;
          const ask = async () => {
            let answer = {state: 'down', error: 'the web page does not answer'};
            try {
              const reply = await fetch('/system/daemon?since=' + encodeURIComponent(since), {cache: 'no-store'});
              if (reply.ok) answer = await reply.json();
            } catch (error) { answer.error = String(error); }
            if (answer.state === 'down') seenDown = true;
            if (answer.state === 'running' && (since || seenDown)) {
              restarting.dataset.state = 'running';
              $('restart-status').textContent = 'The jukebox is running again with the new settings (jukeboxd '
                + answer.version + ', process ' + answer.pid + ').';
              return;
            }
            if (performance.now() - began > 90000) {
              restarting.dataset.state = 'failed';
              $('restart-status').textContent = 'The jukebox did not come back within 90 s ('
                + (answer.error || 'it still runs its previous start') + ').';
              const log = $('restart-log');
              log.textContent = (answer.problems || []).length
                ? 'The config file: ' + answer.problems.join('\\n') : 'Its log: journalctl -u jukeboxd -n 50';
              log.hidden = false;
              return;
            }
            setTimeout(ask, 500);
          };
          ask();
        }
        """
}
