;;; errknow.el --- errknow-ls for Python buffers through eglot  -*- lexical-binding: t; -*-

;; Load it after eglot, e.g. (with-eval-after-load 'eglot (load "/path/to/errknow.el")),
;; then M-x eglot in a Python buffer, or (add-hook 'python-mode-hook #'eglot-ensure).
;; Eglot runs one server per buffer: this entry takes Python buffers from pylsp/pyright.
;;
;; The output of runs goes to the server too (`errknow/terminalOutput'), which puts the tracebacks
;; they print on your source lines: M-x compile (each compilation one run, its command line and exit
;; status), M-x shell (one run per command where the shell marks its prompts with OSC 133, else its
;; output alone) and M-x run-python (its output alone).  A clean re-run of the same command in the
;; same directory takes back the errors earlier runs showed.  See editors/README.md.

;;; Code:

(require 'cl-lib)
(require 'comint)
(require 'eglot)
(require 'project)
(require 'subr-x)

(defgroup errknow nil
  "errknow-ls, a language server for PyTorch runtime errors, through eglot."
  :group 'tools
  :prefix "errknow-")

(defcustom errknow-forward-output t
  "Non-nil: send the output of compilations and shells to errknow-ls.
The server reads the tracebacks in it and shows each error on the line
of your source that raised it."
  :type 'boolean)

(defcustom errknow-compilation-modes '(compilation-mode comint-mode)
  "Major modes of `compilation-start' buffers whose output is forwarded.
M-x compile runs in `compilation-mode', and in `comint-mode' with a
prefix argument.  Searches that derive from `compilation-mode' (grep
and the like) are not runs and are left out."
  :type '(repeat symbol))

(defcustom errknow-comint-modes '(shell-mode inferior-python-mode)
  "Major modes of comint buffers whose output is forwarded.
M-x shell runs in `shell-mode', M-x run-python in `inferior-python-mode'."
  :type '(repeat symbol))

(defun errknow-server-command (&optional _interactive)
  "The command that starts errknow-ls: the project's .venv, else PATH."
  (let* ((project (project-current))
         (root (if project (project-root project) default-directory))
         (venv (expand-file-name ".venv/bin/errknow-ls" root)))
    (list (cond ((file-executable-p venv) venv)
                ((executable-find "errknow-ls"))
                (t (user-error "errknow-ls not found: pip install it into the project's .venv or on PATH")))
          "serve")))

(add-to-list 'eglot-server-programs
             '((python-mode python-ts-mode) . errknow-server-command))

;;; The output of runs, forwarded to the server

(cl-defstruct (errknow--run (:constructor errknow--run-create) (:copier nil))
  "Output that belongs to one run."
  (source nil :documentation "Names the run: the same for all of its chunks.")
  (command nil :documentation "The command line, or nil where it is not known.")
  (sent nil :documentation "A marker: the buffer's text before it was sent.")
  (ended nil :documentation "Non-nil once the end was sent."))

(defvar errknow--sources 0 "How many runs were named: each run's source is its own.")

(defun errknow--new-run (kind command start)
  "A run of KIND (a word in its source) with COMMAND; its output starts at START."
  (errknow--run-create
   :source (format "emacs-%s:%s#%d" kind (buffer-name) (cl-incf errknow--sources))
   :command (and command (not (string-empty-p (string-trim command))) (string-trim command))
   :sent (copy-marker start)))

(defun errknow--server (directory)
  "The running errknow-ls server whose project holds DIRECTORY, or nil.
Of nested projects, the innermost."
  (let (found found-root)
    (maphash
     (lambda (_project servers)
       (dolist (server servers)
         (let ((root (ignore-errors (expand-file-name (project-root (eglot--project server))))))
           (when (and root
                      (jsonrpc-running-p server)
                      (equal (plist-get (eglot--server-info server) :name) "errknow-ls")
                      (file-in-directory-p directory root)
                      (or (null found-root) (> (length root) (length found-root))))
             (setq found server found-root root)))))
     eglot--servers-by-project)
    found))

(defun errknow--notify (run fields)
  "Send FIELDS of RUN as `errknow/terminalOutput'.
It goes to the server of the current buffer's directory.  A remote
directory's files are not the server's: nothing is sent from there."
  (let ((directory (expand-file-name default-directory)))
    (unless (file-remote-p directory)
      (when-let ((server (errknow--server directory)))
        (jsonrpc-notify server :errknow/terminalOutput
                        (append fields
                                (list :cwd (directory-file-name directory)
                                      :source (errknow--run-source run)
                                      :command (errknow--run-command run))))))))

(defun errknow--send (run upto &optional final)
  "Send RUN's text from its marker to UPTO, cut at the last line end unless FINAL."
  (let ((sent (errknow--run-sent run)))
    (when (and (marker-buffer sent) (not (errknow--run-ended run)))
      (with-current-buffer (marker-buffer sent)
        (let ((end (if final
                       upto
                     (save-excursion
                       (goto-char upto)
                       (if (search-backward "\n" sent t) (1+ (point)) sent)))))
          (when (> end sent)
            (let ((text (buffer-substring-no-properties sent end)))
              (set-marker sent end)
              (errknow--notify run (list :text text)))))))))

(defun errknow--end (run upto exit-code)
  "Send the rest of RUN's text up to UPTO, then its end with EXIT-CODE.
EXIT-CODE nil: not known (a signal, or no exit status)."
  (unless (errknow--run-ended run)
    (errknow--send run upto t)
    (with-current-buffer (marker-buffer (errknow--run-sent run))
      (errknow--notify run (list :text "" :end t :exitCode exit-code)))
    (setf (errknow--run-ended run) t)))

;; M-x compile: each compilation is one run, with its command line, directory and exit status.

(defun errknow--compilation-start (process)
  "Forward the output of PROCESS, a compilation in this buffer, as one run."
  (when (and errknow-forward-output (memq major-mode errknow-compilation-modes))
    (let ((run (errknow--new-run "compilation" (car compilation-arguments) (process-mark process))))
      (add-function :after (process-filter process)
                    (lambda (proc _string)
                      (when (buffer-live-p (process-buffer proc))
                        (errknow--send run (process-mark proc)))))
      ;; Before compilation's own sentinel writes "Compilation finished" into the buffer.
      (add-function :before (process-sentinel process)
                    (lambda (proc _event)
                      (when (and (memq (process-status proc) '(exit signal))
                                 (buffer-live-p (process-buffer proc)))
                        (errknow--end run (process-mark proc)
                                      (and (eq (process-status proc) 'exit)
                                           (process-exit-status proc)))))))))

(add-hook 'compilation-start-hook #'errknow--compilation-start)

;; Comint: M-x shell, M-x run-python.  A shell that marks its prompts (OSC 133: A prompt, B command,
;; C output, D;status end) has one run per command, with the command line typed and its exit status;
;; other output belongs to the shell's own run, which no later run repeats.

(defvar-local errknow--shell-run nil "The shell's own run: output outside any marked command.")
(defvar-local errknow--command-run nil "The command the shell marked as running, or nil.")
(defvar-local errknow--input nil "The last command line sent to the shell.")

(defun errknow--comint-setup ()
  "Forward this comint buffer's output if its mode is in `errknow-comint-modes'."
  (when (and errknow-forward-output (memq major-mode errknow-comint-modes))
    (setq errknow--shell-run (errknow--new-run "shell" nil (point-max)))
    (add-hook 'comint-input-filter-functions #'errknow--comint-input nil t)
    (setq-local comint-osc-handlers (cons '("133" . errknow--prompt-mark) comint-osc-handlers))
    (when (fboundp 'comint-osc-process-output) ; Emacs 28 and later
      (add-hook 'comint-output-filter-functions #'comint-osc-process-output nil t))
    (add-hook 'comint-output-filter-functions #'errknow--comint-output 90 t)))

(add-hook 'comint-mode-hook #'errknow--comint-setup)

(defun errknow--comint-input (input)
  "Remember INPUT, the command line the next marked run runs."
  (setq errknow--input input))

(defun errknow--comint-output (_string)
  "Send what the process printed, to the run it belongs to."
  (when-let ((process (get-buffer-process (current-buffer))))
    (errknow--send (or errknow--command-run errknow--shell-run) (process-mark process))))

(defun errknow--prompt-mark (_code text)
  "An OSC 133 mark TEXT at point: C starts a command's run, D;status ends it."
  (cond
   ((equal text "C")
    (if errknow--command-run            ; no D came: the run ended with no status known
        (errknow--end errknow--command-run (point) nil)
      (errknow--send errknow--shell-run (point) t))
    (setq errknow--command-run (errknow--new-run "shell" errknow--input (point))))
   ((and errknow--command-run (string-match "\\`D\\(?:;\\([0-9]+\\)\\)?" text))
    (let ((status (match-string 1 text)))
      (errknow--end errknow--command-run (point) (and status (string-to-number status))))
    (setq errknow--command-run nil)
    (set-marker (errknow--run-sent errknow--shell-run) (point)))))

(provide 'errknow)
;;; errknow.el ends here
