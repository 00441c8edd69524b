;;; runs.el --- runs in M-x compile, M-x shell and M-x run-python, forwarded to errknow-ls  -*- lexical-binding: t; -*-
;; Run as: emacs -Q --batch -l runs.el in the project; reads ERRKNOW_EMACS_SNIPPET, ERRKNOW_E2E_ROOT,
;; ERRKNOW_E2E_PYTHON (a Python with torch), ERRKNOW_E2E_OUT.
;;
;; fit.py fails at run time in steps.py; each way of running it puts the error on steps.py's line 5.
;; After the user fixes fit.py, a clean re-run of the same command takes the error back: again in a
;; compilation, and in a shell whose prompt marks its commands (~/.bashrc, written by the test). The
;; Python shell's output belongs to no program: its error stays until the clear command.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)
(require 'compile)
(require 'shell)
(require 'python)

(defvar errknow-notes nil "The `errknow/terminalOutput' notifications sent, newest first.")
(advice-add 'jsonrpc-notify :before
            (lambda (_connection method params)
              (when (eq method :errknow/terminalOutput)
                (push params errknow-notes))))

(defun errknow-runtime (buffer)
  "BUFFER's diagnostics from runs: those raised \"in the run\"."
  (with-current-buffer buffer
    (seq-filter (lambda (d) (string-match-p "raised here in " (alist-get 'text d)))
                (errknow-diagnostics))))

(defun errknow-write (file text)
  "Save TEXT as FILE, as the user's editor does."
  (with-current-buffer (find-file-noselect file)
    (erase-buffer)
    (insert text)
    (save-buffer)))

(defun errknow-type (buffer command)
  "Type COMMAND at BUFFER's prompt and press RET."
  (with-current-buffer buffer
    (goto-char (point-max))
    (insert command)
    (comint-send-input)))

(defun errknow-ends ()
  "The ends of runs sent so far, oldest first: command, exit code, directory (vectors, for JSON)."
  (vconcat (mapcar (lambda (note) (vector (plist-get note :command) (plist-get note :exitCode) (plist-get note :cwd)))
                   (reverse (seq-filter (lambda (note) (plist-get note :end)) errknow-notes)))))

(defun errknow-raised-then-cleared (name steps run rerun)
  "RUN, wait for its error on STEPS and its end; fix fit.py, RERUN, wait for the error to go and
the run to end; NAME the step."
  (let ((ended (length (errknow-ends))))
    (errknow-write fit broken)
    (funcall run)
    (errknow-wait 120 (format "%s: the run's error on steps.py" name) (lambda () (errknow-runtime steps)))
    (push (cons (intern (format "%s_raised" name)) (errknow-runtime steps)) errknow-seen)
    (errknow-wait 60 (format "%s: the run to end" name) (lambda () (> (length (errknow-ends)) ended)))
    (errknow-write fit fixed)
    (funcall rerun)
    (errknow-wait 120 (format "%s: the clean re-run to take the error back" name)
                  (lambda () (null (errknow-runtime steps))))
    (push (cons (intern (format "%s_cleared" name)) (errknow-runtime steps)) errknow-seen)
    (errknow-wait 60 (format "%s: the re-run to end" name) (lambda () (> (length (errknow-ends)) (1+ ended))))))

(defvar fit nil)
(defvar broken nil)
(defvar fixed nil)

(errknow-scenario
 (let* ((root (file-name-as-directory (getenv "ERRKNOW_E2E_ROOT")))
        (command (format "%s fit.py" (getenv "ERRKNOW_E2E_PYTHON")))
        (default-directory root)
        steps)
   (setq fit (expand-file-name "fit.py" root)
         broken (with-temp-buffer (insert-file-contents fit) (buffer-string))
         fixed (string-replace "    step(loss)" "    loss = (weights * weights).sum()\n    step(loss)" broken))
   (find-file (expand-file-name "steps.py" root))
   (setq steps (current-buffer))
   (errknow-connect)
   (push (cons 'command command) errknow-seen)

   ;; M-x compile, then M-x recompile (g in the compilation buffer).
   (errknow-raised-then-cleared
    "compile" steps
    (lambda () (compile command))
    (lambda () (with-current-buffer "*compilation*" (recompile))))

   ;; M-x shell: bash, whose ~/.bashrc marks its prompts; the command typed twice.
   (setq explicit-shell-file-name "/bin/bash")
   (let ((shell-buffer (save-window-excursion (shell))))
     (errknow-raised-then-cleared
      "shell" steps
      (lambda () (errknow-type shell-buffer command))
      (lambda () (errknow-type shell-buffer command))))
   (push (cons 'ends (errknow-ends)) errknow-seen)

   ;; M-x run-python: the script run in the Python shell; its error stays after a clean re-run (a
   ;; REPL's output is no program's), until the clear command.
   (errknow-write fit broken)
   (let* ((python-shell-interpreter (getenv "ERRKNOW_E2E_PYTHON"))
          (python-shell-interpreter-args "-i")
          (python-shell-completion-native-enable nil)
          (python (save-window-excursion (process-buffer (run-python nil nil nil)))))
     (errknow-wait 60 "python: its prompt"
                   (lambda () (with-current-buffer python
                                (and python-shell--first-prompt-received
                                     (string-suffix-p ">>> " (buffer-string))))))
     (errknow-type python "exec(open('fit.py').read())")
     (errknow-wait 120 "python: the error on steps.py" (lambda () (errknow-runtime steps)))
     (push (cons 'python_raised (errknow-runtime steps)) errknow-seen)
     (errknow-write fit fixed)
     (errknow-type python "exec(open('fit.py').read())")
     (errknow-type python "print('ran' + ' clean')")
     (errknow-wait 60 "python: the clean run's output"
                   (lambda () (with-current-buffer python
                                (save-excursion (goto-char (point-min)) (search-forward "ran clean" nil t)))))
     (errknow-wait 60 "python: the clean run's output forwarded"
                   (lambda () (seq-find (lambda (note) (string-match-p "ran clean" (plist-get note :text)))
                                        errknow-notes)))
     (push (cons 'python_after_rerun (errknow-runtime steps)) errknow-seen)
     (with-current-buffer steps
       (eglot-execute-command (eglot-current-server) "errknow.clearRuntimeFindings" []))
     (errknow-wait 30 "the clear command" (lambda () (null (errknow-runtime steps))))
     (push (cons 'python_sources
                 (delete-dups (mapcar (lambda (note) (vector (plist-get note :source) (plist-get note :command)))
                                      (seq-filter (lambda (note) (string-match-p "python" (plist-get note :source)))
                                                  errknow-notes))))
           errknow-seen))
   (push (cons 'notes (length errknow-notes)) errknow-seen)))
